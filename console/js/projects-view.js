// Projects: the account's projects (GET /v3/projects) and a form that creates one (POST /v3/projects),
// whose API key is shown once. Both need an account-level credential: a login session or an account key
// is used as it is; signed in with a project key, the view asks for an account key (svc_acc_…) and keeps
// it in this module's memory only (never in sessionStorage): a reload or "Forget" drops it.
import { api, loadSession, saveSession } from './api.js';
import { h, replace, errorBox, formatTime } from './dom.js';

let els;
/** Account key typed into this view; held by this page only. */
let accountKey = null;

/** The credential for /v3/projects: the session's own when account-level, else the typed account key. */
function accountCredential() {
  const session = loadSession();
  if (session && session.kind !== 'project_key') return { token: session.token };
  return accountKey ? { token: accountKey } : null;
}

/** Switch the console to `project` (with its new key when the session is a project key). */
function openProject(project, apiKey) {
  const session = loadSession();
  if (session.kind === 'project_key') saveSession({ token: apiKey, kind: 'project_key', projectName: project.name });
  else saveSession({ ...session, projectId: project.id, projectName: project.name });
  location.hash = '#upload';
  location.reload();
}

function projectsTable(projects, current) {
  return h('table', { class: 'grid', id: 'project-list' },
    h('thead', {}, h('tr', {}, ['Name', 'Product', 'Protected', 'Namespace', 'Created', ''].map((t) => h('th', {}, t)))),
    h('tbody', {}, projects.map((p) => h('tr', { 'data-project-id': p.id },
      h('td', {}, h('div', { class: 'strong' }, p.name), h('code', { class: 'small' }, p.id)),
      h('td', {}, p.product), h('td', {}, p.protected ? 'yes' : 'no'), h('td', {}, h('code', { class: 'small' }, p.namespace)),
      h('td', {}, formatTime(p.created_at)),
      h('td', {}, p.id === current ? h('span', { class: 'badge badge-current' }, 'open now')
        : loadSession()?.kind !== 'project_key' && p.product === 'docsearch'
          ? h('button', { type: 'button', class: 'small', onclick: () => openProject(p) }, 'Open') : null)))));
}

async function refresh() {
  const credential = accountCredential();
  els.keyCard.hidden = loadSession()?.kind !== 'project_key';
  els.keyEntry.hidden = Boolean(accountKey);
  els.keyInUse.hidden = !accountKey;
  els.form.querySelector('fieldset').disabled = !credential;
  if (!credential) {
    replace(els.list, h('p', { class: 'muted' }, 'Enter an account key above to list and create projects.'));
    return;
  }
  try {
    const [{ projects }, current] = await Promise.all([api('/projects', { session: credential }), api('/project').catch(() => null)]);
    replace(els.list, projectsTable(projects, current?.id));
  } catch (err) {
    replace(els.list, errorBox(err));
  }
}

function created(project) {
  const key = h('input', { type: 'text', id: 'created-key', readonly: true, value: project.api_key, spellcheck: 'false' });
  return h('div', { class: 'card created', id: 'project-created', 'data-project-id': project.id },
    h('h2', {}, `Project “${project.name}” created`),
    h('p', {}, 'Its API key is shown only now: store it where your server-side code reads it. The console does not keep it.'),
    h('div', { class: 'row' }, key,
      h('button', { type: 'button', class: 'small', onclick: () => { key.select(); void navigator.clipboard?.writeText(project.api_key).catch(() => {}); } }, 'Copy')),
    project.product === 'docsearch'
      ? h('p', {}, h('button', { type: 'button', id: 'project-open', onclick: () => openProject(project, project.api_key) }, 'Open this project'))
      : null);
}

async function create(ev) {
  ev.preventDefault();
  const credential = accountCredential();
  if (!credential) return;
  const body = { name: els.name.value.trim(), product: els.product.value, protected: els.protected.checked };
  replace(els.result, h('p', { class: 'muted' }, 'Creating…'));
  try {
    const project = await api('/projects', { method: 'POST', body, session: credential });
    els.name.value = '';
    replace(els.result, created(project));
    void refresh();
  } catch (err) {
    replace(els.result, errorBox(err));
  }
}

/** Build the view once. */
export function mount(section) {
  const keyInput = h('input', { type: 'password', id: 'account-key', autocomplete: 'off', spellcheck: 'false', placeholder: 'svc_acc_…' });
  els = {
    name: h('input', { type: 'text', id: 'project-name', required: true, maxlength: 128, placeholder: 'e.g. support-articles', autocomplete: 'off' }),
    product: h('select', { id: 'project-product' }, h('option', { value: 'docsearch' }, 'docsearch'), h('option', { value: 'altproduct' }, 'altproduct')),
    protected: h('input', { type: 'checkbox', id: 'project-protected' }),
    list: h('div'),
    result: h('div'),
  };
  els.keyEntry = h('div', { class: 'row' }, keyInput, h('button', { type: 'submit', id: 'account-key-use' }, 'Use for this page'));
  els.keyInUse = h('p', { id: 'account-key-in-use' }, 'An account key is in use for this page (in memory only). ',
    h('button', { type: 'button', id: 'account-key-forget', class: 'link', onclick: () => { accountKey = null; replace(els.result); void refresh(); } }, 'Forget it'));
  els.keyCard = h('form', {
    class: 'card', id: 'account-key-card', onsubmit: async (ev) => {
      ev.preventDefault();
      const value = keyInput.value.trim();
      keyInput.value = '';
      try {
        if (!value.startsWith('svc_acc_')) throw Object.assign(new Error('An account key starts with svc_acc_.'), { code: 'unknown_key_kind' });
        await api('/projects', { session: { token: value } }); // kept only once the service accepts it
        accountKey = value;
        replace(els.result);
      } catch (err) {
        replace(els.result, errorBox(err));
      }
      void refresh();
    },
  }, h('h2', {}, 'Account key'),
  h('p', { class: 'hint' }, 'You are signed in with a project key, which cannot list or create projects. Paste an account key (svc_acc_…) for this page: '
    + 'it is kept in memory only and forgotten on reload. Signing in with e-mail and password needs none.'),
  els.keyEntry, els.keyInUse);
  els.form = h('form', { class: 'card', id: 'project-form', onsubmit: create },
    h('fieldset', { class: 'plain' },
      h('h2', {}, 'New project'),
      h('div', { class: 'row wrap' },
        h('label', { class: 'field grow' }, h('span', {}, 'name'), els.name),
        h('label', { class: 'field' }, h('span', {}, 'product'), els.product),
        h('label', { class: 'check' }, els.protected, ' protected (refuses account keys)'),
        h('button', { type: 'submit', id: 'project-create' }, 'Create project'))));
  replace(section, h('h1', {}, 'Projects'), els.keyCard, els.form, els.result, h('h2', {}, 'Projects of the account'), els.list);
}

export function show() {
  void refresh();
}
