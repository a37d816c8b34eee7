"""A small Chrome DevTools Protocol client for Debian's chromium in headless mode.

It talks to the browser over --remote-debugging-pipe (file descriptors 3 and 4, one JSON
message per NUL-terminated frame), so it needs neither a network port, nor a websocket
library, nor a browser downloaded by npm. Used by tests/web/ and scripts/bench_web.sh.
"""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    """Debian's chromium, or $CHROMIUM; None when neither is there."""
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


class CdpError(RuntimeError):
    pass


class Browser:
    """One headless chromium with one page (tab) attached."""

    def __init__(self, chromium, width=1100, height=1500):
        self.profile = tempfile.mkdtemp(prefix="collsim-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_pipes():  # in the child: its fd 3 reads our commands, fd 4 writes answers
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        args = [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--mute-audio", f"--user-data-dir={self.profile}", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=wire_pipes, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._buffer = b""
        self.events = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "DOM"):
            self.page(f"{domain}.enable")
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    # -- the protocol
    def _send(self, message):
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]

    def _receive(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise CdpError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise CdpError("chromium closed its pipe (did it start? try: chromium --headless=new --no-sandbox)")
            self._buffer += chunk
        frame, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(frame)

    def call(self, method, session=None, timeout=60, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self._send(message)
        while True:
            answer = self._receive(timeout)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise CdpError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    # -- what the tests do with a page
    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (awaited when a promise)."""
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise CdpError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            if self.evaluate(expression):
                return
            if time.monotonic() > deadline:
                raise CdpError(f"timed out waiting for {expression}")
            time.sleep(0.02)

    def navigate(self, url):
        self.page("Page.navigate", url=url)

    def set_files(self, selector, paths):
        root = self.page("DOM.getDocument")["root"]["nodeId"]
        node = self.page("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self.page("DOM.setFileInputFiles", nodeId=node, files=[str(p) for p in paths])

    def screenshot(self, path):
        data = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def exceptions(self):
        """Uncaught exceptions the page reported so far (Runtime.exceptionThrown)."""
        return [e["params"]["exceptionDetails"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)
