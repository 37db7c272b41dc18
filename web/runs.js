// Training runs as `darkhex plot` draws them: exploitability against
// iterations and against training seconds, both axes logarithmic, one
// colour a run.

import { post, esc, showError } from './api.js';

const $ = (id) => document.getElementById(id);
const COLOURS = ['#1f5fa8', '#c8462c', '#2f8f46', '#8a4bb0', '#c28a12', '#238a8a', '#8c564b', '#d6619e'];

export function initRuns(files) {
  const runs = files.filter((f) => f.kind === 'run' || f.kind === 'checkpoint');
  $('run-list').innerHTML = runs.length
    ? runs.map((f) => `<label><input type="checkbox" value="${esc(f.path)}"> ${esc(f.shown)} <span class="muted">(${f.kind})</span></label>`).join('')
    : '<p class="muted">none found: give the server the folder of your runs (`darkhex serve FOLDER`)</p>';
  $('draw-runs').onclick = draw;
}

async function draw() {
  showError($('runs-error'));
  const paths = [...document.querySelectorAll('#run-list input:checked')].map((i) => i.value);
  try {
    const { runs } = await post('/api/runs', { paths });
    $('charts').replaceChildren(
      chart(runs, 'iteration', 'iterations'),
      chart(runs, 'seconds', 'training seconds'),
    );
  } catch (e) {
    showError($('runs-error'), e);
  }
}

// Powers of ten covering [lo, hi].
function decades(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

function chart(runs, key, label) {
  const W = 560; const H = 380; const L = 70; const B = 48; const T = 30; const Rm = 16;
  const pts = runs.flatMap((r) => r.points.filter((p) => p[key] > 0 && p.exploitability > 0));
  const box = document.createElement('figure');
  box.className = 'chart';
  if (!pts.length) {
    box.textContent = `no evaluations with positive ${label}`;
    return box;
  }
  const xs = pts.map((p) => p[key]); const ys = pts.map((p) => p.exploitability);
  const [x0, x1] = [Math.min(...xs) / 1.25, Math.max(...xs) * 1.25];
  const [y0, y1] = [Math.min(...ys) / 1.25, Math.max(...ys) * 1.25];
  const X = (x) => L + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * (W - L - Rm);
  const Y = (y) => H - B - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * (H - B - T);
  let svg = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" class="run-chart" data-axis="${key}">`;
  svg += `<rect x="${L}" y="${T}" width="${W - L - Rm}" height="${H - B - T}" class="plot-area"/>`;
  for (const d of decades(x0, x1).filter((d) => d >= x0 && d <= x1)) {
    svg += `<line x1="${X(d)}" x2="${X(d)}" y1="${T}" y2="${H - B}" class="grid"/><text x="${X(d)}" y="${H - B + 16}" class="tick" text-anchor="middle">${d >= 1 ? d.toLocaleString('en') : d}</text>`;
  }
  for (const d of decades(y0, y1).filter((d) => d >= y0 && d <= y1)) {
    svg += `<line x1="${L}" x2="${W - Rm}" y1="${Y(d)}" y2="${Y(d)}" class="grid"/><text x="${L - 6}" y="${Y(d) + 4}" class="tick" text-anchor="end">${d.toExponential(0)}</text>`;
  }
  svg += `<text x="${(L + W - Rm) / 2}" y="${H - 10}" class="axis" text-anchor="middle">${esc(label)}</text>`;
  svg += `<text x="16" y="${(T + H - B) / 2}" class="axis" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">exploitability</text>`;
  runs.forEach((r, i) => {
    const c = COLOURS[i % COLOURS.length];
    const ps = r.points.filter((p) => p[key] > 0 && p.exploitability > 0);
    if (!ps.length) return;
    svg += `<polyline class="series" data-run="${esc(r.name)}" fill="none" stroke="${c}" stroke-width="2" points="${ps.map((p) => `${X(p[key]).toFixed(1)},${Y(p.exploitability).toFixed(1)}`).join(' ')}"/>`;
    svg += ps.map((p) => `<circle cx="${X(p[key]).toFixed(1)}" cy="${Y(p.exploitability).toFixed(1)}" r="3" fill="${c}"><title>${esc(r.name)}: ${p.exploitability.toExponential(3)} at ${p[key]}</title></circle>`).join('');
    svg += `<line x1="${W - Rm - 200}" x2="${W - Rm - 180}" y1="${T + 14 + 16 * i}" y2="${T + 14 + 16 * i}" stroke="${c}" stroke-width="2"/><text x="${W - Rm - 175}" y="${T + 18 + 16 * i}" class="legend">${esc(`${r.algo} on ${r.game}`.slice(0, 34))}</text>`;
  });
  svg += '</svg>';
  box.innerHTML = `${svg}<figcaption>exploitability against ${esc(label)}</figcaption>`;
  return box;
}
