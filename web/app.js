// The page's frame: tabs by the address's #fragment, the pickers filled
// from the files under the server's folders, and each view started.

import { get } from './api.js';
import { initPlay } from './play.js';
import { initLeague } from './league.js';
import { initPolicy } from './policy.js';
import { initRuns } from './runs.js';

function showTab() {
  const tab = (location.hash || '#play').slice(1);
  document.querySelectorAll('section.tab').forEach((s) => { s.hidden = s.id !== tab; });
  document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', a.dataset.tab === tab));
}

function options(id, values) {
  document.getElementById(id).innerHTML = values.map((v) => `<option value="${v.replace(/"/g, '&quot;')}"></option>`).join('');
}

async function main() {
  window.addEventListener('hashchange', showTab);
  showTab();
  initPlay();
  initLeague();
  initPolicy();
  let files = [];
  try {
    const about = await get('/api/about');
    options('games', about.games);
    document.getElementById('folders').textContent = about.folders.join('; ');
    files = (await get('/api/files')).files;
  } catch (e) {
    document.getElementById('folders').textContent = String(e.message || e);
  }
  const policies = files.filter((f) => ['policy', 'model', 'pone'].includes(f.kind));
  options('players', ['random', 'lp', 'ismcts(sims=500)', 'mcts(sims=1000)', 'pone', 'resistance',
    'solver(time=1)', 'network(eval=ek)', ...policies.map((f) => `policy(file=${f.path})`)]);
  options('leagues', files.filter((f) => f.kind === 'league').map((f) => f.path));
  options('policies', policies.map((f) => f.path));
  initRuns(files);
  document.body.dataset.ready = '1';
}

main();
