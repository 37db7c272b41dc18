// The server's JSON API: requests that throw the server's one-line error,
// and long jobs followed over server-sent events.

async function answer(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(body.error || `the server answered ${response.status}`);
  return body;
}

export async function get(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  return answer(await fetch(query ? `${path}?${query}` : path));
}

export async function post(path, body = {}) {
  return answer(await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }));
}

// Runs a job: `onProgress({what, done, total})` a few times a second,
// then resolves with its result or rejects with its error. `cancel()`
// closes the stream, which stops the work on the server; so does leaving
// the page.
export function job(path, params, onProgress) {
  const source = new EventSource(`${path}?${new URLSearchParams(params)}`);
  let settle;
  const result = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  source.addEventListener('progress', (e) => onProgress(JSON.parse(e.data)));
  source.addEventListener('result', (e) => { source.close(); settle.resolve(JSON.parse(e.data)); });
  source.addEventListener('failure', (e) => { source.close(); settle.reject(new Error(JSON.parse(e.data).error)); });
  // A stream that breaks is not reopened: that would start the work again.
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) {
      source.close();
      settle.reject(new Error('the connection to the server was lost'));
    }
  };
  return {
    result,
    cancel() { source.close(); settle.reject(new Error('cancelled')); },
  };
}

// Shows a job's progress in `box` (a .job element) and wires its Cancel.
export function follow(box, path, params) {
  const bar = box.querySelector('progress');
  const what = box.querySelector('.job-what');
  box.hidden = false;
  bar.removeAttribute('value');
  what.textContent = 'starting';
  const running = job(path, params, (p) => {
    what.textContent = p.total ? `${p.what}: ${p.done} of ${p.total}` : (p.done ? `${p.what}: ${p.done}` : p.what);
    if (p.total) { bar.max = p.total; bar.value = p.done; } else { bar.removeAttribute('value'); }
  });
  const button = box.querySelector('.cancel');
  button.onclick = () => running.cancel();
  return running.result.finally(() => { box.hidden = true; });
}

// The escape of text put into HTML.
export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export function showError(box, error) {
  box.textContent = error ? String(error.message || error) : '';
}
