// SVG charts for the evaluation report, drawn with DOM calls (no library, no inline style: the console's
// Content-Security-Policy allows neither): grouped bars of per-variant figures, and line charts on a 0..1
// square (the reliability curve of score, the found share over the min_relevance sweep).

const NS = 'http://www.w3.org/2000/svg';
/** Series colours, one per variant (at most 4). */
export const COLOURS = ['#2f5bd3', '#d97706', '#16794c', '#9333ea'];

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const W = 460, H = 270, PAD = { l: 44, r: 12, t: 30, b: 40 };
const x0 = PAD.l, x1 = W - PAD.r, y0 = H - PAD.b, y1 = PAD.t;
const sx = (v) => x0 + v * (x1 - x0);
const sy = (v) => y0 - v * (y0 - y1);

/** Axes with 0..1 ticks on y (and on x unless `xLabels` are given), and axis titles. */
function frame(xTitle, yTitle, xTicks = true) {
  const g = s('g', { class: 'axes' });
  for (let i = 0; i <= 5; i++) {
    const v = i / 5;
    g.append(s('line', { x1: x0, x2: x1, y1: sy(v), y2: sy(v), stroke: '#e3e6eb' }));
    g.append(s('text', { x: x0 - 6, y: sy(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#667085' }, v.toFixed(1)));
    if (xTicks) g.append(s('text', { x: sx(v), y: y0 + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#667085' }, v.toFixed(1)));
  }
  g.append(s('line', { x1: x0, x2: x1, y1: y0, y2: y0, stroke: '#98a2b3' }));
  g.append(s('line', { x1: x0, x2: x0, y1: y0, y2: y1, stroke: '#98a2b3' }));
  g.append(s('text', { x: (x0 + x1) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 12, fill: '#475467' }, xTitle));
  g.append(s('text', { x: 12, y: (y0 + y1) / 2, 'text-anchor': 'middle', 'font-size': 12, fill: '#475467', transform: `rotate(-90 12 ${(y0 + y1) / 2})` }, yTitle));
  return g;
}

function legend(names) {
  return s('g', { class: 'legend' }, names.map((n, i) => s('g', { transform: `translate(${x0 + i * 110} 6)` },
    s('rect', { width: 10, height: 10, fill: COLOURS[i % COLOURS.length], rx: 2 }),
    s('text', { x: 14, y: 9, 'font-size': 11, fill: '#1d2330' }, n.length > 14 ? `${n.slice(0, 13)}…` : n))));
}

/**
 * Grouped bars: one group per metric, one bar per variant, values 0..1.
 * @param metrics [{label, values: number[] (one per variant)}]
 */
export function barChart(title, names, metrics, id) {
  const group = (x1 - x0) / metrics.length;
  const bw = Math.min(26, (group - 16) / names.length);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', id, role: 'img', 'aria-label': title }, s('title', {}, title), frame('', 'share', false));
  metrics.forEach((m, gi) => {
    const gx = x0 + gi * group + (group - bw * names.length) / 2;
    m.values.forEach((v, vi) => {
      svg.append(s('rect', { x: gx + vi * bw, y: sy(v), width: bw - 3, height: Math.max(0, y0 - sy(v)), fill: COLOURS[vi % COLOURS.length], 'data-value': v },
        s('title', {}, `${names[vi]} ${m.label}: ${v}`)));
    });
    svg.append(s('text', { x: x0 + gi * group + group / 2, y: y0 + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#475467' }, m.label));
  });
  svg.append(legend(names));
  return svg;
}

/**
 * Lines on the unit square. series: [{name, points: [[x, y, n?]], marker?: [x, y]}]; `diagonal` draws y = x.
 */
export function lineChart(title, xTitle, yTitle, series, { diagonal = false, id } = {}) {
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', id, role: 'img', 'aria-label': title }, s('title', {}, title), frame(xTitle, yTitle));
  if (diagonal) svg.append(s('line', { x1: sx(0), y1: sy(0), x2: sx(1), y2: sy(1), stroke: '#98a2b3', 'stroke-dasharray': '4 4' }));
  series.forEach((ser, i) => {
    const c = COLOURS[i % COLOURS.length];
    // Earlier series are drawn wider, so a later one that coincides leaves them visible around it.
    const width = 2 + 2 * (series.length - 1 - i);
    if (ser.points.length > 1) svg.append(s('polyline', { points: ser.points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(' '), fill: 'none', stroke: c, 'stroke-width': width }));
    for (const [x, y, n] of ser.points) svg.append(s('circle', { cx: sx(x), cy: sy(y), r: 2.5 + width / 2, fill: c }, s('title', {}, `${ser.name}: ${x} → ${y}${n ? ` (n=${n})` : ''}`)));
    if (ser.marker) svg.append(s('circle', { cx: sx(ser.marker[0]), cy: sy(ser.marker[1]), r: 7, fill: 'none', stroke: c, 'stroke-width': 2, class: 'marker' }));
  });
  svg.append(legend(series.map((x) => x.name)));
  return svg;
}
