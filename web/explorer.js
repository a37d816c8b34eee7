// collsim explorer: the page's controls, tables and drawings. Every figure comes from
// collsim's engine (collsim.js, the command set compiled to WebAssembly by web/CMakeLists.txt):
// the page builds a collsim command line, runs it in the engine and shows the report's JSON;
// numbers are formatted by the engine's fmt ("{:.2f}"), as the CLI's tables print them.
'use strict';

const $ = (id) => document.getElementById(id);

// What a test (tests/web/) or a curious user can read: is the engine loaded, are updates
// pending, when did the first result appear (ms after navigation start).
const explorerState = { ready: false, pending: 0, updates: 0, firstResultMs: null, chartDone: false, sentDone: false };
window.explorerState = explorerState;

// ---------------------------------------------------------------- the engine
const engine = {
  module: null,
  run(args) {
    const text = this.module.ccall('collsim_run', 'string', ['string'], [JSON.stringify(args)]);
    return JSON.parse(text);
  },
  fixed(value, decimals) { return this.module.ccall('collsim_fixed', 'string', ['number', 'number'], [value, decimals]); },
  version() { return this.module.ccall('collsim_version', 'string', [], []); },
  write(name, text) { this.module.FS.writeFile('/work/' + name, text); },
  list(folder) {
    return this.module.FS.readdir(folder).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  },
};

// ---------------------------------------------------------------- inputs
const STAR_FILE = 'explorer-star.json';
const LARGE_CLUSTER_HOSTS = 512;
const topologyRanks = new Map();  // topology choice -> its number of ranks (files only)

function numberInput(id, fallback) {
  const v = Number($(id).value);
  return Number.isFinite(v) ? v : fallback;
}

function inputs() {
  const algos = [...document.querySelectorAll('#algos input:checked')].map((e) => e.value);
  return {
    topology: $('topology').value,
    n: Math.round(numberInput('n', 8)),
    bandwidth: numberInput('bandwidth', 100),
    latency: numberInput('latency', 1),
    op: $('op').value,
    size: $('size').value.trim(),
    algos,
    workload: $('workload').value,
    device: $('device').value,
    bucket: numberInput('bucket', 25),
    backend: $('backend').value,
  };
}

function starJson(hosts, bandwidth, latency) {
  return JSON.stringify({
    name: 'explorer-star',
    generator: { kind: 'star', hosts, bandwidth: `${bandwidth}Gbps`, latency: `${latency}us` },
  }, null, 2) + '\n';
}

// The --topology (and --ranks) arguments for the current choice, writing the generated star.
function topologyArgs(v, n = v.n, file = STAR_FILE) {
  if (v.topology === 'star') {
    engine.write(file, starJson(n, v.bandwidth, v.latency));
    return ['--topology', file];
  }
  const args = ['--topology', splitChoice(v.topology)[1]];
  const total = topologyRanks.get(v.topology);
  if (total !== undefined && n !== total) args.push('--ranks', String(n));
  return args;
}

function splitChoice(choice) {
  const i = choice.indexOf(':');
  return [choice.slice(0, i), choice.slice(i + 1)];
}

// ---------------------------------------------------------------- the collective table
const shellWord = (w) => (/^[A-Za-z0-9_.,:/@%^+=-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);
const commandLine = (args) => ['collsim', ...args].map(shellWord).join(' ');

function collectiveArgs(v, algo, topo) {
  return ['collective', ...topo, '--op', v.op, '--algo', algo, '--sizes', v.size];
}

function showError(text) {
  const box = $('error');
  box.textContent = text;
  box.hidden = text === '';
}

function cell(text, field, algo) {
  const td = document.createElement('td');
  td.textContent = text;
  if (field) td.dataset.field = field;
  if (algo) td.dataset.algo = algo;
  return td;
}

function updateCollective(v, commands) {
  const body = $('collective-table').tBodies[0];
  body.replaceChildren();
  const topo = topologyArgs(v);
  const failures = [];
  for (const algo of v.algos) {
    const args = collectiveArgs(v, algo, topo);
    commands.push(commandLine(args));
    const answer = engine.run([...args, '--format', 'json']);
    const tr = document.createElement('tr');
    tr.dataset.algo = algo;
    tr.append(cell(algo));
    if (answer.exit_code !== 0) {
      failures.push(answer.errors.trim());
      const td = cell(answer.errors.trim().replace(/^collsim: error: /, ''), 'error', algo);
      td.colSpan = 5;
      td.className = 'row-error';
      tr.append(td);
    } else {
      const row = answer.report.rows[0];
      tr.append(cell(row.protocol, 'protocol', algo), cell(engine.fixed(row.time_us, 2), 'time_us', algo),
                cell(engine.fixed(row.algbw_gbps, 2), 'algbw_gbps', algo),
                cell(engine.fixed(row.busbw_gbps, 2), 'busbw_gbps', algo), cell('…', 'sent_bytes', algo));
    }
    body.append(tr);
  }
  // A topology that does not load fails every algorithm alike: its message once, as the CLI
  // prints it, above the table.
  const same = failures.length > 0 && failures.length === v.algos.length && failures.every((f) => f === failures[0]);
  showError(same ? failures[0] : '');
  if (same) {
    for (const td of body.querySelectorAll('td.row-error')) td.textContent = 'did not run: see the error above';
  }
}

// Bytes each GPU sends, from the algorithm's schedule (collsim schedule): the generated star
// only (one GPU per host), and up to 256 GPUs (the schedule lists every transfer).
function updateSent(v, commands, generation) {
  const note = $('sent-note');
  const limit = 256;
  const cells = [...document.querySelectorAll('#collective-table td[data-field="sent_bytes"]')];
  if (v.topology !== 'star' || v.n > limit) {
    for (const td of cells) td.textContent = '—';
    note.textContent = v.topology !== 'star'
      ? 'Sent per GPU: shown for the generated star (collsim schedule assumes one GPU per host there).'
      : `Sent per GPU: shown up to ${limit} GPUs (collsim schedule lists every transfer).`;
    explorerState.sentDone = true;
    return;
  }
  note.textContent = 'Sent per GPU: min – max over the GPUs, from collsim schedule.';
  for (const td of cells) {
    const args = ['schedule', '--op', v.op, '--algo', td.dataset.algo, '--ranks', String(v.n), '--size', v.size];
    commands.push(commandLine(args));
    later(generation, () => {
      const answer = engine.run([...args, '--format', 'json']);
      if (answer.exit_code !== 0) {
        td.textContent = '—';
        td.title = answer.errors.trim();
        return;
      }
      const sent = answer.report.per_rank.map((r) => r.sent_bytes);
      const lo = Math.min(...sent), hi = Math.max(...sent);
      td.textContent = lo === hi ? String(hi) : `${lo} – ${hi}`;
    });
  }
  later(generation, () => { explorerState.sentDone = true; });
}

// ---------------------------------------------------------------- time vs N
function chartSizes(v) {
  const max = v.topology === 'star' ? 1024 : (topologyRanks.get(v.topology) ?? v.n);
  const out = [];
  for (let n = 2; n <= max; n *= 2) out.push(n);
  if (out[out.length - 1] !== max && max >= 2) out.push(max);
  return out;
}

function updateChart(v, generation) {
  const sizes = chartSizes(v);
  const series = Object.fromEntries(v.algos.map((a) => [a, []]));
  $('chart-status').textContent = '(computing…)';
  for (const algo of v.algos) {
    for (const n of sizes) {
      later(generation, () => {
        const topo = topologyArgs(v, n, `explorer-star-${n}.json`);
        const answer = engine.run([...collectiveArgs(v, algo, topo), '--format', 'json']);
        if (answer.exit_code === 0) series[algo].push([n, answer.report.rows[0].time_us]);
      });
    }
  }
  later(generation, () => {
    drawChart($('chart'), series, v, (x, d) => engine.fixed(x, d));
    $('chart-status').textContent = `(${v.op}, ${v.size} per GPU; ${sizes.length} sizes x ${v.algos.length} algorithms)`;
    explorerState.chartDone = true;
  });
}

// ---------------------------------------------------------------- DDP
function ddpArgs(v) {
  const args = ['ddp', ...topologyArgs(v), '--workload', v.workload, '--bucket-mb', String(v.bucket), '--backend', v.backend];
  if (v.device) args.push('--device', v.device);
  return args;
}

function updateDdp(v, commands) {
  const args = ddpArgs(v);
  commands.push(commandLine(args));
  const answer = engine.run([...args, '--format', 'json']);
  const figures = $('ddp-figures');
  figures.replaceChildren();
  $('bucket-table').tBodies[0].replaceChildren();
  $('timeline').replaceChildren();
  if (answer.exit_code !== 0) {
    figures.append(Object.assign(document.createElement('dd'), { className: 'row-error', textContent: answer.errors.trim() }));
    return;
  }
  const r = answer.report;
  const shown = [['iteration', r.iteration_ms, 'ms', 3], ['forward', r.forward_ms, 'ms', 3],
                 ['backward', r.backward_ms, 'ms', 3], ['communication', r.communication_ms, 'ms', 3],
                 ['exposed communication', r.exposed_communication_ms, 'ms', 3], ['overlap', r.overlap_percent, '%', 1]];
  for (const [name, value, unit, decimals] of shown) {
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.dataset.field = name.replace(/ /g, '_');
    dd.textContent = `${engine.fixed(value, decimals)} ${unit}`;
    figures.append(dt, dd);
  }
  const ms = (ps) => ps / 1e9;
  for (const b of r.buckets) {
    const tr = document.createElement('tr');
    tr.append(cell(String(b.index)), cell(engine.fixed(b.bytes / 1048576, 2)), cell(engine.fixed(ms(b.ready_ps), 3)),
              cell(engine.fixed(ms(b.start_ps), 3)), cell(engine.fixed(ms(b.end_ps), 3)), cell(b.choice));
    $('bucket-table').tBodies[0].append(tr);
  }
  drawTimeline($('timeline'), r, (x, d) => engine.fixed(x, d));
}

// ---------------------------------------------------------------- scheduling
// Deferred work (chart points, bytes sent) runs a piece per timer tick so the page stays
// responsive; a newer update drops the rest of an older one.
let generationNow = 0;
const queue = [];
function later(generation, fn) {
  queue.push([generation, fn]);
  explorerState.pending = queue.length;
  if (queue.length === 1) setTimeout(drain, 0);
}
function drain() {
  const started = performance.now();
  while (queue.length > 0 && performance.now() - started < 30) {
    const [generation, fn] = queue.shift();
    if (generation === generationNow) fn();
  }
  explorerState.pending = queue.length;
  if (queue.length > 0) setTimeout(drain, 0);
}

function update() {
  const v = inputs();
  const generation = ++generationNow;
  explorerState.chartDone = false;
  explorerState.sentDone = false;
  const commands = [];
  updateCollective(v, commands);
  updateDdp(v, commands);
  updateSent(v, commands, generation);
  updateChart(v, generation);
  $('commands').textContent = commands.join('\n');
  $('topology-json').textContent = v.topology === 'star' ? starJson(v.n, v.bandwidth, v.latency) : '(a file: see the topology list)';
  explorerState.updates += 1;
  if (explorerState.firstResultMs === null) explorerState.firstResultMs = performance.now();
}

// ---------------------------------------------------------------- wiring
function pair(rangeId, numberId, toNumber, toRange) {
  $(rangeId).addEventListener('input', () => { $(numberId).value = toNumber(Number($(rangeId).value)); update(); });
  $(numberId).addEventListener('change', () => { $(rangeId).value = toRange($(numberId).value); update(); });
}

const SIZE_UNITS = [[30, 'GiB'], [20, 'MiB'], [10, 'KiB'], [0, 'B']];
function sizeText(exponent) {
  for (const [e, unit] of SIZE_UNITS) if (exponent >= e) return `${2 ** (exponent - e)}${unit}`;
  return `${2 ** exponent}B`;
}

// A shipped topology or an uploaded file: how many ranks it has (a collective on it says).
function chooseTopology() {
  const choice = $('topology').value;
  const star = choice === 'star';
  for (const id of ['bandwidth', 'bandwidth-range', 'latency', 'latency-range']) $(id).disabled = !star;
  if (!star && !topologyRanks.has(choice)) {
    const answer = engine.run(['collective', '--topology', splitChoice(choice)[1], '--algo', 'ring', '--sizes', '1KiB', '--format', 'json']);
    if (answer.exit_code === 0) topologyRanks.set(choice, answer.report.rows[0].ranks);
  }
  const ranks = topologyRanks.get(choice);
  if (!star && ranks !== undefined) {
    $('n').max = String(ranks);
    $('n').value = String(ranks);
  } else if (star) {
    $('n').max = '4096';
  }
  $('device').value = star && $('device').value === '' ? 'V100' : star ? $('device').value : '';
  $('topology-note').textContent = star
    ? 'A star: every GPU has one link of bandwidth B and latency L to one switch.'
    : ranks !== undefined ? `${splitChoice(choice)[1]}: ${ranks} ranks; N uses the first N (--ranks).` : '';
  update();
}

function addTopologyOption(value, label) {
  const option = document.createElement('option');
  option.value = value;
  option.textContent = label;
  $('topology').append(option);
  return option;
}

async function upload() {
  const file = $('upload').files[0];
  if (!file) return;
  const name = file.name.replace(/[^A-Za-z0-9_.-]/g, '_');
  engine.write(name, await file.text());
  const value = `upload:${name}`;
  topologyRanks.delete(value);
  if (![...$('topology').options].some((o) => o.value === value)) addTopologyOption(value, `uploaded: ${name}`);
  $('topology').value = value;
  chooseTopology();
}

function start(module) {
  explorerState.engineLoadedMs = performance.now();
  engine.module = module;
  $('version').textContent = `engine: collsim ${engine.version()} (WebAssembly, running in this page)`;
  // Cluster files of thousands of hosts take seconds per command even natively (the whole
  // fabric is built and checked each time): offered by the CLI, not by this page.
  const tooLarge = [];
  for (const name of engine.list('/collsim/topologies')) {
    const text = engine.module.FS.readFile(`/collsim/topologies/${name}.json`, { encoding: 'utf8' });
    const generator = JSON.parse(text).generator;
    if (generator && generator.kind === 'cluster' && generator.hosts > LARGE_CLUSTER_HOSTS) {
      tooLarge.push(name);
    } else {
      addTopologyOption(`shipped:${name}`, `shipped: ${name}`);
    }
  }
  $('large-note').textContent = tooLarge.length === 0 ? ''
    : `Not offered here (more than ${LARGE_CLUSTER_HOSTS} hosts: seconds per run in a browser tab; use the CLI): ${tooLarge.join(', ')}.`;
  for (const name of engine.list('/collsim/workloads')) {
    $('workload').append(Object.assign(document.createElement('option'), { value: name, textContent: name }));
  }
  $('workload').value = 'resnet50';
  $('device').prepend(Object.assign(document.createElement('option'), { value: '', textContent: "the topology's GPU" }));
  $('device').value = 'V100';
  pair('n-range', 'n', (k) => 2 ** k, (n) => Math.max(1, Math.min(10, Math.round(Math.log2(Math.max(2, n))))));
  pair('size-range', 'size', sizeText, (text) => $('size-range').value);
  pair('bandwidth-range', 'bandwidth', (b) => b, (b) => b);
  pair('latency-range', 'latency', (l) => l, (l) => l);
  pair('bucket-range', 'bucket', (b) => b, (b) => b);
  for (const id of ['op', 'workload', 'device', 'backend']) $(id).addEventListener('change', update);
  $('algos').addEventListener('change', update);
  $('topology').addEventListener('change', chooseTopology);
  $('upload').addEventListener('change', upload);
  explorerState.ready = true;
  update();
}

createCollsim().then(start).catch((e) => {
  $('version').textContent = `the engine did not load: ${e}`;
});
