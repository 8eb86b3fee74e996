// Console shell: shows the sign-in screen until there is a session, then the tab the URL hash names
// (#upload, #jobs, #search, #docs, #buckets, #evaluations, #projects). Each view module exports
// `mount(section)` once and `show()` on every visit; `hide()` (optional) stops its timers. The header
// names the project, read once per page load from GET /v3/project.
import { api, loadSession, saveSession, clearSession } from './api.js';
import { mountLogin } from './login-view.js';
import * as upload from './upload-view.js';
import * as jobs from './jobs-view.js';
import * as projects from './projects-view.js';
import * as search from './search-view.js';
import * as docs from './documents-view.js';
import * as buckets from './buckets-view.js';
import * as evaluations from './evaluations-view.js';

const views = { upload, jobs, search, docs, buckets, evaluations, projects };
const mounted = new Set();
let current;

const $ = (id) => document.getElementById(id);

let projectRead = false;

function showWho(session) {
  $('who-project').textContent = session.projectName ?? session.projectId ?? '';
  $('who-credential').textContent = `· ${session.email ?? (session.kind === 'project_key' ? 'project key' : 'account key')}`;
}

/** The project's name as the service knows it (once per page load; a failure keeps the stored label). */
async function readProjectName() {
  if (projectRead) return;
  projectRead = true;
  try {
    const project = await api('/project');
    const session = loadSession();
    if (!session) return;
    saveSession({ ...session, projectName: project.name });
    showWho(loadSession());
    $('who-project').title = `${project.name} · ${project.id} · ${project.namespace}`;
  } catch { /* a 401 already returned to sign-in; anything else keeps the label */ }
}

function showLogin(message) {
  current?.hide?.();
  current = undefined;
  for (const section of document.querySelectorAll('.view')) section.hidden = true;
  $('tabs').hidden = true;
  $('who').hidden = true;
  const section = $('view-login');
  // Views hold the previous project's state (job rows, task cards): after a re-login start afresh.
  mountLogin(section, { message, onSignedIn: () => (mounted.size ? location.reload() : route()) });
  section.hidden = false;
}

function route() {
  const session = loadSession();
  if (!session) return showLogin();
  $('view-login').hidden = true;
  $('tabs').hidden = false;
  $('who').hidden = false;
  showWho(session);
  void readProjectName();
  const name = location.hash.slice(1) in views ? location.hash.slice(1) : 'upload';
  const view = views[name];
  if (current && current !== view) current.hide?.();
  for (const [key] of Object.entries(views)) $(`view-${key}`).hidden = key !== name;
  for (const tab of document.querySelectorAll('#tabs a')) tab.classList.toggle('active', tab.dataset.view === name);
  if (!mounted.has(name)) { view.mount($(`view-${name}`)); mounted.add(name); }
  current = view;
  view.show();
}

$('sign-out').addEventListener('click', () => {
  clearSession();
  location.replace(location.pathname);
});
// Any 401 from the API (expired session, deleted project) returns to the sign-in screen.
window.addEventListener('console:unauthorized', (ev) => {
  if (!loadSession()) return;
  clearSession();
  showLogin(ev.detail?.message ?? 'Your session ended; sign in again.');
});
window.addEventListener('hashchange', route);
route();
