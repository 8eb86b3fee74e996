// Small DOM helpers shared by the console views: element construction without innerHTML (every text is
// a text node, so nothing from the API is ever parsed as HTML) and the uniform error box.

/**
 * Create an element. attrs: `class`, `on<event>` handlers, booleans (true → present, false/null → absent),
 * anything else as an attribute. children: nodes, strings/numbers (text), arrays, null (skipped).
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'value') el.value = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** The error box: the error body's `code` and `message` (ApiError) or a plain error's message. */
export function errorBox(err) {
  const code = err?.code ?? 'error';
  const status = err?.status ? ` (HTTP ${err.status})` : '';
  return h('div', { class: 'error', role: 'alert' }, h('code', {}, code), ' ', err?.message ?? String(err), status);
}

/** Byte count for people: 1536 → "1.5 KB". */
export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

/** A score with three decimals, or a dash when the stage did not run (null/undefined). */
export function formatScore(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '—';
}

/** ISO time → local "YYYY-MM-DD HH:MM:SS", or a dash. */
export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hourCycle: 'h23' });
}

/** A coloured state badge; `data-state` lets styles and tests key on the raw value. */
export function badge(state) {
  return h('span', { class: `badge badge-${String(state).replace(/[^a-z_]/gi, '')}`, 'data-state': state }, String(state).replaceAll('_', ' '));
}

/**
 * A button that acts on its second click within 4 s (the first arms it and shows `confirmLabel`).
 * `action` runs with the button disabled; it is enabled again when `action` throws (the caller shows why).
 * @param {{label: string, confirmLabel: string, action: () => Promise<void>, attrs?: object}} opts
 */
export function confirmButton({ label, confirmLabel, action, attrs = {} }) {
  let armed;
  const button = h('button', {
    type: 'button', class: 'danger small', ...attrs,
    onclick: async () => {
      if (!armed) {
        button.textContent = confirmLabel;
        button.classList.add('armed');
        armed = setTimeout(() => { armed = undefined; button.textContent = label; button.classList.remove('armed'); }, 4000);
        return;
      }
      clearTimeout(armed);
      armed = undefined;
      button.disabled = true;
      try { await action(); } catch { button.disabled = false; }
    },
  }, label);
  return button;
}
