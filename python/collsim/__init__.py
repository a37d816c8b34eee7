"""collsim from Python: the same engine, figures and error messages as the collsim command.

Every function runs the collsim command of the same name inside this process, with
keyword arguments as its flags (``bucket_mb=25`` is ``--bucket-mb 25``; a list is a comma
list; ``True`` is a bare flag; ``None`` and ``False`` are left out), and returns its JSON
report as plain dicts and lists. A topology, workload or plan may be given as a file path,
a shipped name (``"resnet50"``, ``"dgx-h100"``) or a Python dict. Bad input raises
:class:`CollsimError` with the CLI's message and exit code.

    >>> import collsim
    >>> collsim.collective(op="allreduce", algo="ring", sizes=["1GiB"])[0]["busbw_gbps"]
"""

import json
import os
import pathlib
import tempfile

# Shipped topologies, workloads and plans: the build tree's share/collsim beside this
# package (build/python/collsim -> build/share/collsim), unless COLLSIM_DATA_DIR says.
_share = pathlib.Path(__file__).resolve().parent.parent.parent / "share" / "collsim"
if _share.is_dir():
    os.environ.setdefault("COLLSIM_DATA_DIR", str(_share))

from . import _collsim  # noqa: E402  (after COLLSIM_DATA_DIR is set)

__version__ = _collsim.version()
__all__ = ["CollsimError", "collective", "collective_report", "ddp", "sweep", "plan", "run", "validate",
           "command", "to_dataframe", "__version__"]

# Options that name a JSON file: a dict given for one is written to a temporary file.
_FILE_OPTIONS = {"topology", "workload", "calibration", "plan", "scenario", "failures"}


class CollsimError(Exception):
    """A collsim command failed: ``message`` is what the CLI prints on stderr (for bad input
    it names the file or flag, the field, the value and what was expected), ``exit_code`` its
    exit code (2: bad input, 1: a failed check or an internal error); ``report`` the
    report when the command made one before failing (``validate`` beyond its tolerance)."""

    def __init__(self, message, exit_code, report=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.report = report  # the report, when the command made one before failing (a check's verdict)


def _flag(name):
    return "--" + name.replace("_", "-")


def _value(name, value, temporary):
    if isinstance(value, dict):
        if name not in _FILE_OPTIONS:
            raise TypeError(f"collsim: {name}= takes a dict only for a file option ({', '.join(sorted(_FILE_OPTIONS))})")
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8")
        with f:
            json.dump(value, f)
        temporary.append(f.name)
        return f.name
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def command(args, **options):
    """Runs ``collsim ARGS... --flags`` in process with ``--format json`` and returns its
    report (a dict). ``args`` is a list of leading words (``["plan", "dgx-h100-clusters"]``)."""
    argv = [str(a) for a in args]
    temporary = []
    try:
        for name, value in options.items():
            if value is None or value is False:
                continue
            if value is True:
                argv.append(_flag(name))
            else:
                argv += [_flag(name), _value(name, value, temporary)]
        argv += ["--format", "json"]
        code, report, errors = _collsim.run_command(argv)
    finally:
        for path in temporary:
            os.unlink(path)
    if code != 0:
        message = errors.strip() or f"collsim {' '.join(argv)} exited {code}"
        raise CollsimError(message, code, json.loads(report) if report else None)
    if not report:
        raise CollsimError(f"collsim {' '.join(argv)} made no report", 1)
    return json.loads(report)


def collective(**options):
    """``collsim collective``: one row per size (a list of dicts: time_us, algbw_gbps,
    busbw_gbps, the algorithm and protocol NCCL's model chose, ...)."""
    return command(["collective"], **options)["rows"]


def collective_report(**options):
    """``collsim collective`` as the whole report (topology, rows)."""
    return command(["collective"], **options)


def ddp(**options):
    """``collsim ddp``: one DDP (or ``sharding=``) step: the summary figures and the buckets."""
    return command(["ddp"], **options)


def sweep(**options):
    """``collsim sweep``: rows per (world size, bucket size) and the best bucket per world size."""
    return command(["sweep"], **options)


def plan(plan, **options):
    """``collsim plan PLAN``: every candidate x world size x workload x strategy. ``plan`` is a
    file, a shipped plan's name, or a dict (relative paths in a dict are taken from the
    current directory's view of a temporary file: give absolute paths or shipped names)."""
    temporary = []
    try:
        return command(["plan", _value("plan", plan, temporary)], **options)
    finally:
        for path in temporary:
            os.unlink(path)


def run(**options):
    """``collsim run``: a training run with failures (goodput, checkpoint interval)."""
    return command(["run"], **options)


def validate(**options):
    """``collsim validate``: predictions next to measurements."""
    return command(["validate"], **options)


def to_dataframe(rows):
    """Rows (a list of dicts, e.g. collective() or sweep()["rows"]) as a pandas DataFrame;
    needs pandas."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("collsim.to_dataframe needs pandas (Debian: python3-pandas)") from e
    return pandas.DataFrame(rows)
