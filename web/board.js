// The board every view draws: a Hex rhombus of pointy-topped hexagons in
// HexGui's orientation (a1 the top left corner, letters name columns,
// numbers rows; Black joins top and bottom, White left and right), as
// SVG. Stones, stones a player ran into, a heat map with its numbers, a
// highlighted cell, mouse and keyboard input.

const R = 26;                 // hexagon radius
const W = R * Math.sqrt(3);   // hexagon width
const MARGIN = 44;
const NS = 'http://www.w3.org/2000/svg';
// Gradient ids must be unique in the page: a reference to another SVG's
// (in a hidden tab) draws nothing.
let drawn = 0;

export function cellName(cell, cols) {
  return String.fromCharCode(97 + (cell % cols)) + (Math.floor(cell / cols) + 1);
}

function centre(r, c) {
  return [MARGIN + W * (c + r / 2) + W / 2, MARGIN + R + 1.5 * R * r];
}

// Vertex k (0 lower right, 1 bottom, 2 lower left, 3 upper left, 4 top,
// 5 upper right) of the hexagon at (x, y), pushed out by `out`.
function vertex(x, y, k, out = 0) {
  const a = (Math.PI / 180) * (30 + 60 * k);
  return [x + (R + out) * Math.cos(a), y + (R + out) * Math.sin(a)];
}

function hexPoints(x, y, shrink = 0) {
  return [0, 1, 2, 3, 4, 5].map((k) => vertex(x, y, k, -shrink).map((v) => v.toFixed(2)).join(',')).join(' ');
}

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// A heat colour from pale to deep orange for a share from 0 to 1.
function heat(share) {
  const s = Math.max(0, Math.min(1, share));
  const mix = (a, b) => Math.round(a + (b - a) * s);
  return `rgb(${mix(246, 214)},${mix(228, 72)},${mix(190, 28)})`;
}

// Draws `board` ({rows, cols, cells, revealed}) into `container`.
// Options: heat (a value per cell, null where none), heatLabel (text of a
// value), highlight (a cell), clickable (cells that take a click),
// onCell(cell), title (for the SVG's label), caption, scale (of the size).
export function drawBoard(container, board, opts = {}) {
  const { rows, cols } = board;
  const [right] = centre(rows - 1, cols - 1);
  const [, bottom] = centre(rows - 1, 0);
  const width = right + W / 2 + MARGIN;
  const height = bottom + R + MARGIN;
  const scale = opts.scale || 1;
  const svg = el('svg', {
    viewBox: `0 0 ${width.toFixed(0)} ${height.toFixed(0)}`,
    width: (width * scale).toFixed(0), height: (height * scale).toFixed(0),
    class: 'hexboard', role: 'img', tabindex: opts.onCell ? '0' : '-1',
    'data-rows': rows, 'data-cols': cols,
    'aria-label': opts.title || `${cols}x${rows} board`,
  });
  const id = `b${++drawn}`;
  const defs = el('defs');
  defs.innerHTML = `
    <radialGradient id="${id}-stone0" cx="35%" cy="30%" r="75%"><stop offset="0" stop-color="#5b5b5b"/><stop offset="1" stop-color="#0b0b0b"/></radialGradient>
    <radialGradient id="${id}-stone1" cx="35%" cy="30%" r="75%"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#c9c9c9"/></radialGradient>
    <filter id="${id}-shadow" x="-30%" y="-30%" width="160%" height="160%"><feDropShadow dx="1.2" dy="1.6" stdDeviation="1.2" flood-opacity="0.45"/></filter>`;
  svg.appendChild(defs);

  // The sides: Black's along the top and bottom rows, White's along the
  // first and last columns, drawn under the cells so half shows.
  const edge = (points, player) => {
    svg.appendChild(el('polyline', {
      points: points.map((p) => p.map((v) => v.toFixed(2)).join(',')).join(' '),
      class: `edge edge${player}`, fill: 'none',
      'stroke-linejoin': 'round', 'stroke-linecap': 'round',
    }));
  };
  const out = 5;
  const top = []; const bot = []; const left = []; const rightSide = [];
  for (let c = 0; c < cols; c++) {
    const [x, y] = centre(0, c); top.push(vertex(x, y, 3, out), vertex(x, y, 4, out));
    const [x2, y2] = centre(rows - 1, c); bot.push(vertex(x2, y2, 2, out), vertex(x2, y2, 1, out));
  }
  top.push(vertex(...centre(0, cols - 1), 5, out));
  bot.push(vertex(...centre(rows - 1, cols - 1), 0, out));
  for (let r = 0; r < rows; r++) {
    const [x, y] = centre(r, 0); left.push(vertex(x, y, 3, out), vertex(x, y, 2, out));
    const [x2, y2] = centre(r, cols - 1); rightSide.push(vertex(x2, y2, 5, out), vertex(x2, y2, 0, out));
  }
  edge(top, 0); edge(bot, 0); edge(left, 1); edge(rightSide, 1);

  for (let c = 0; c < cols; c++) {
    const [x, y] = centre(0, c);
    svg.appendChild(el('text', { x: x.toFixed(1), y: (y - R - 14).toFixed(1), class: 'coord' }, String.fromCharCode(97 + c)));
  }
  for (let r = 0; r < rows; r++) {
    const [x, y] = centre(r, 0);
    svg.appendChild(el('text', { x: (x - W / 2 - 16).toFixed(1), y: (y + 4).toFixed(1), class: 'coord' }, String(r + 1)));
  }

  const values = opts.heat || null;
  const finite = values ? values.filter((v) => v !== null && v !== undefined && Number.isFinite(v)) : [];
  const top1 = finite.length ? Math.max(...finite.map(Math.abs), 1e-12) : 1;
  const clickable = opts.clickable ? new Set(opts.clickable) : null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = r * cols + c;
      const [x, y] = centre(r, c);
      const g = el('g', { class: 'cell', 'data-cell': cell, 'data-name': cellName(cell, cols) });
      const value = values ? values[cell] : null;
      const hasValue = value !== null && value !== undefined && Number.isFinite(value);
      const fill = hasValue ? heat(Math.abs(value) / top1) : null;
      const hex = el('polygon', { points: hexPoints(x, y, 0.6), class: 'hex' });
      if (fill) hex.setAttribute('style', `fill:${fill}`);
      g.appendChild(hex);
      const owner = board.cells[cell];
      if (owner !== null && owner !== undefined) {
        g.setAttribute('data-stone', owner);
        g.appendChild(el('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: (R * 0.62).toFixed(1), fill: `url(#${id}-stone${owner})`, class: `stone stone${owner}`, filter: `url(#${id}-shadow)` }));
        if (board.revealed && board.revealed[cell]) {
          g.setAttribute('data-revealed', '1');
          g.appendChild(el('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: (R * 0.74).toFixed(1), class: 'found' }));
        }
      }
      if (hasValue) {
        g.setAttribute('data-value', String(value));
        const label = opts.heatLabel ? opts.heatLabel(value) : value.toFixed(2);
        const stoneHere = owner !== null && owner !== undefined;
        g.appendChild(el('text', { x: x.toFixed(1), y: (y + 4).toFixed(1), class: `heat-label${stoneHere && owner === 0 ? ' on-black' : ''}` }, label));
      }
      if (opts.highlight === cell) g.classList.add('highlight');
      if (clickable && clickable.has(cell) && opts.onCell) {
        g.classList.add('playable');
        g.addEventListener('click', () => opts.onCell(cell));
      }
      g.appendChild(el('title', {}, cellName(cell, cols) + (hasValue ? ` ${value}` : '')));
      svg.appendChild(g);
    }
  }
  if (opts.onCell && clickable) keyboard(svg, board, clickable, opts.onCell);
  container.replaceChildren(svg);
  if (opts.caption) {
    const p = document.createElement('p');
    p.className = 'caption';
    p.textContent = opts.caption;
    container.appendChild(p);
  }
  return svg;
}

// Arrow keys move a cursor over the cells, Enter or space plays the cell
// under it; typing a cell name (letters then digits) and Enter plays it.
function keyboard(svg, board, clickable, onCell) {
  const { rows, cols } = board;
  let cursor = [...clickable][0] ?? 0;
  let typed = '';
  const show = () => {
    svg.querySelectorAll('.cursor').forEach((g) => g.classList.remove('cursor'));
    const g = svg.querySelector(`[data-cell="${cursor}"]`);
    if (g) g.classList.add('cursor');
  };
  svg.addEventListener('focus', show);
  svg.addEventListener('blur', () => svg.querySelectorAll('.cursor').forEach((g) => g.classList.remove('cursor')));
  svg.addEventListener('keydown', (e) => {
    let r = Math.floor(cursor / cols); let c = cursor % cols;
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (moves[e.key]) {
      r = Math.max(0, Math.min(rows - 1, r + moves[e.key][0]));
      c = Math.max(0, Math.min(cols - 1, c + moves[e.key][1]));
      cursor = r * cols + c; typed = ''; show(); e.preventDefault();
    } else if (e.key === 'Enter' || e.key === ' ') {
      const m = /^([a-z])(\d+)$/.exec(typed);
      const cell = m ? (Number(m[2]) - 1) * cols + (m[1].charCodeAt(0) - 97) : cursor;
      typed = '';
      if (clickable.has(cell)) onCell(cell);
      e.preventDefault();
    } else if (/^[a-z0-9]$/i.test(e.key)) {
      typed = /^[a-z]$/i.test(e.key) ? e.key.toLowerCase() : typed + e.key;
    }
  });
}
