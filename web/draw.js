// collsim explorer: the drawings (SVG) of the page: the time-vs-N chart and the DDP step
// timeline. They lay out figures of the engine's reports and compute none of their own;
// `fixed` is the engine's number formatting (explorer.js passes engine.fixed).
'use strict';

const COLORS = { ring: '#1f77b4', tree: '#2ca02c', ps: '#d62728', hier_ring: '#9467bd' };

function svg(tag, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, val] of Object.entries(attrs)) e.setAttribute(k, val);
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawChart(chart, series, v, fixed) {
  chart.replaceChildren();
  const W = 720, H = 360, L = 80, R = 150, T = 15, B = 45;
  const points = Object.values(series).flat();
  if (points.length === 0) {
    chart.append(svg('text', { x: L, y: H / 2 }, 'no algorithm ran on this topology'));
    return;
  }
  const xs = points.map((p) => Math.log2(p[0])), ys = points.map((p) => Math.log10(p[1]));
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.floor(Math.min(...ys)), y1 = Math.max(Math.ceil(Math.max(...ys)), y0 + 1);
  const X = (n) => L + ((Math.log2(n) - x0) / (x1 - x0)) * (W - L - R);
  const Y = (t) => H - B - ((Math.log10(t) - y0) / (y1 - y0)) * (H - T - B);
  chart.append(svg('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }),
               svg('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }));
  for (let e = Math.ceil(x0); e <= Math.floor(x1); ++e) {
    const n = 2 ** e;
    chart.append(svg('text', { x: X(n), y: H - B + 16, class: 'tick', 'text-anchor': 'middle' }, String(n)));
  }
  for (let e = y0; e <= y1; ++e) {
    chart.append(svg('line', { x1: L, y1: Y(10 ** e), x2: W - R, y2: Y(10 ** e), class: 'grid' }),
                 svg('text', { x: L - 6, y: Y(10 ** e) + 4, class: 'tick', 'text-anchor': 'end' }, `1e${e}`));
  }
  chart.append(svg('text', { x: (L + W - R) / 2, y: H - 8, 'text-anchor': 'middle' }, 'GPUs (N)'),
               svg('text', { x: 14, y: (T + H - B) / 2, transform: `rotate(-90 14 ${(T + H - B) / 2})`,
                             'text-anchor': 'middle' }, 'time (us)'));
  if (v.n >= 2) {
    const xn = X(Math.min(Math.max(v.n, 2 ** x0), 2 ** x1));
    chart.append(svg('line', { x1: xn, y1: T, x2: xn, y2: H - B, class: 'marker' }));
  }
  let legendY = T + 10;
  for (const [algo, pts] of Object.entries(series)) {
    const color = COLORS[algo] ?? '#444';
    if (pts.length > 0) {
      // Dashed for hier_ring: on one GPU per host it is the ring, drawn over it.
      chart.append(svg('polyline', { points: pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '), fill: 'none',
                                     stroke: color, 'stroke-width': 2, 'data-algo': algo,
                                     'stroke-dasharray': algo === 'hier_ring' ? '6 4' : 'none' }));
      for (const p of pts) {
        const dot = svg('circle', { cx: X(p[0]), cy: Y(p[1]), r: 3, fill: color });
        dot.append(svg('title', {}, `${algo}, N = ${p[0]}: ${fixed(p[1], 2)} us`));
        chart.append(dot);
      }
    }
    chart.append(svg('rect', { x: W - R + 15, y: legendY - 9, width: 12, height: 12, fill: color }),
                 svg('text', { x: W - R + 32, y: legendY + 1 }, pts.length ? algo : `${algo} (did not run)`));
    legendY += 20;
  }
}

// Two streams: compute (forward, backward with the bucket copies, optimizer) and
// communication (one block per bucket all-reduce); the exposed communication, the time the
// step waits for communication after backward, is the red band.
function drawTimeline(t, r, fixed) {
  const W = 960, L = 110, R = 20, rowH = 34, top = 20;
  const total = r.iteration_ms;
  const X = (msv) => L + (msv / total) * (W - L - R);
  const rows = { compute: top, communication: top + rowH + 16 };
  for (const [name, y] of Object.entries(rows)) {
    t.append(svg('text', { x: 6, y: y + rowH / 2 + 4 }, name));
  }
  const block = (row, from, to, cls, label) => {
    const g = svg('g', { class: cls });
    g.append(svg('rect', { x: X(from), y: rows[row], width: Math.max(X(to) - X(from), 0.5), height: rowH }));
    if (label && X(to) - X(from) > 40) g.append(svg('text', { x: (X(from) + X(to)) / 2, y: rows[row] + rowH / 2 + 4, 'text-anchor': 'middle' }, label));
    g.append(svg('title', {}, `${label ?? cls}: ${fixed(from, 3)} – ${fixed(to, 3)} ms`));
    t.append(g);
  };
  const backwardEnd = r.forward_ms + r.backward_ms + r.bucket_copies_ms + r.hook_compute_ms;
  const exposedEnd = total - r.optimizer_ms;
  const exposedStart = exposedEnd - r.exposed_communication_ms;
  block('compute', 0, r.forward_ms, 'forward', 'forward');
  block('compute', r.forward_ms, backwardEnd, 'backward', 'backward');
  block('compute', exposedEnd, total, 'optimizer', 'optimizer');
  for (const b of r.buckets) block('communication', b.start_ps / 1e9, b.end_ps / 1e9, 'bucket', `b${b.index}`);
  if (r.exposed_communication_ms > 0) {
    t.append(svg('rect', { x: X(exposedStart), y: top - 6, width: Math.max(X(exposedEnd) - X(exposedStart), 1),
                           height: 2 * rowH + 28, class: 'exposed' }));
  }
  t.append(svg('text', { x: L, y: top + 2 * rowH + 40, class: 'tick' },
               `0 – ${fixed(total, 3)} ms; red: exposed communication ${fixed(r.exposed_communication_ms, 3)} ms`));
}
