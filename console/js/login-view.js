// Sign-in screen: the spec's console login (e-mail + password → session JWT) or a pasted API key.
// A project key (svc_prod_ds_…) names its project; a session or an account key (svc_acc_…) needs a
// project picked from GET /v3/projects, which is then sent as X-Project-ID.
import { api, saveSession } from './api.js';
import { h, replace, errorBox } from './dom.js';

/**
 * Render the sign-in screen into `section`.
 * @param {HTMLElement} section
 * @param {{message?: string, onSignedIn: () => void}} opts
 */
export function mountLogin(section, { message, onSignedIn }) {
  const status = h('div', { class: 'status-line' });
  const fail = (err) => replace(status, errorBox(err));

  const pickProject = async (credential) => {
    replace(status, 'Loading projects…');
    const { projects } = await api('/projects', { session: { token: credential.token } });
    const usable = projects.filter((p) => p.product === 'docsearch');
    if (usable.length === 0) return firstProject(credential);
    const select = h('select', { id: 'project-select', 'aria-label': 'Project' },
      usable.map((p) => h('option', { value: p.id }, `${p.name} (${p.id})`)));
    const choose = () => {
      const project = usable.find((p) => p.id === select.value);
      saveSession({ ...credential, projectId: project.id, projectName: project.name });
      onSignedIn();
    };
    replace(status, h('div', { class: 'card' }, h('h2', {}, 'Choose a project'), h('div', { class: 'row' }, select,
      h('button', { type: 'button', id: 'project-choose', onclick: choose }, 'Open project'))));
  };

  // An account without a docsearch project: create the first one here (POST /v3/projects) and open it.
  const firstProject = (credential) => {
    const name = h('input', { type: 'text', id: 'first-project-name', required: true, maxlength: 128, placeholder: 'project name' });
    const msg = h('div');
    replace(status, h('form', {
      class: 'card', onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const project = await api('/projects', { method: 'POST', body: { name: name.value.trim(), product: 'docsearch' }, session: { token: credential.token } });
          const open = () => { saveSession({ ...credential, projectId: project.id, projectName: project.name }); onSignedIn(); };
          replace(status, h('div', { class: 'card' }, h('h2', {}, `Project “${project.name}” created`),
            h('p', {}, 'Its API key, shown only now (the console does not keep it):'),
            h('input', { type: 'text', readonly: true, value: project.api_key, class: 'key-once', spellcheck: 'false' }),
            h('p', {}, h('button', { type: 'button', id: 'first-project-open', onclick: open }, 'Open the project'))));
        } catch (err) { replace(msg, errorBox(err)); }
      },
    }, h('h2', {}, 'Create your first project'),
    h('p', { class: 'hint' }, 'This account has no docsearch project yet.'),
    h('div', { class: 'row' }, name, h('button', { type: 'submit', id: 'first-project-create' }, 'Create and open')), msg));
  };

  const email = h('input', { type: 'email', id: 'login-email', autocomplete: 'username', required: true, placeholder: 'you@example.com' });
  const password = h('input', { type: 'password', id: 'login-password', autocomplete: 'current-password', required: true });
  const loginForm = h('form', {
    class: 'card', onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        replace(status, 'Signing in…');
        const res = await api('/auth/login', { method: 'POST', body: { email: email.value, password: password.value }, session: null });
        await pickProject({ token: res.token, kind: 'login', email: email.value });
      } catch (err) { fail(err); }
    },
  }, h('h2', {}, 'Sign in'),
  h('label', {}, 'E-mail', email), h('label', {}, 'Password', password),
  h('button', { type: 'submit', id: 'login-submit' }, 'Sign in'));

  const key = h('input', { type: 'password', id: 'api-key', autocomplete: 'off', spellcheck: 'false', placeholder: 'svc_prod_ds_… or svc_acc_…', required: true });
  const keyForm = h('form', {
    class: 'card', onsubmit: async (ev) => {
      ev.preventDefault();
      const token = key.value.trim();
      try {
        if (token.startsWith('svc_prod_ds_')) {
          replace(status, 'Checking the key…');
          // The docs list checks the key reaches a docsearch project; /project gives its name.
          const [, project] = await Promise.all([api('/docsearch/docs', { session: { token } }), api('/project', { session: { token } })]);
          saveSession({ token, kind: 'project_key', projectName: project.name });
          onSignedIn();
        } else if (token.startsWith('svc_acc_')) {
          await pickProject({ token, kind: 'account_key' });
        } else {
          throw Object.assign(new Error('A project key starts with svc_prod_ds_, an account key with svc_acc_.'), { code: 'unknown_key_kind' });
        }
      } catch (err) { fail(err); }
    },
  }, h('h2', {}, 'Use an API key'),
  h('label', {}, 'API key', key),
  h('p', { class: 'hint' }, 'Kept only in this tab (sessionStorage) and sent to this service alone.'),
  h('button', { type: 'submit', id: 'api-key-submit' }, 'Use key'));

  replace(section,
    h('div', { class: 'login' },
      h('h1', {}, 'Sign in to docsearch'),
      message ? h('div', { class: 'notice' }, message) : null,
      h('div', { class: 'login-grid' }, loginForm, keyForm),
      status));
}
