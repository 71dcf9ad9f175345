// Builds DOM nodes. Strings always become text nodes (S-CO-3): nothing here parses markup, so stored data is
// shown literally whatever it contains.

/**
 * Creates an element. `props` sets a few safe things: `class`, `text`, `title`, `href` (only `#…` links),
 * `dataset`, `attrs` (plain attribute values), `on` (event listeners). Children are nodes, strings (as text), arrays,
 * or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props ?? {})) {
        if (value === null || value === undefined || value === false) continue;
        switch (key) {
            case 'class': el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value; break;
            case 'text': el.textContent = String(value); break;
            case 'title': el.title = String(value); break;
            case 'href': el.setAttribute('href', safeHref(value)); break;
            case 'dataset': Object.assign(el.dataset, value); break;
            case 'attrs': for (const [name, v] of Object.entries(value)) if (v !== null && v !== undefined && v !== false) el.setAttribute(name, String(v)); break;
            case 'on': for (const [event, listener] of Object.entries(value)) el.addEventListener(event, listener); break;
            default: el[key] = value;
        }
    }
    append(el, children);
    return el;
}

export function append(parent, children) {
    for (const child of children.flat(Infinity)) {
        if (child === null || child === undefined || child === false) continue;
        parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return parent;
}

/** Replaces the children of `parent`. */
export function replace(parent, ...children) {
    parent.replaceChildren();
    return append(parent, children);
}

function safeHref(value) {
    const href = String(value);
    return href.startsWith('#') ? href : '#';
}

/** Turns any status string into a CSS class: `status-cancellation-requested`, `status-waiting`, … */
export function statusClass(status) {
    return 'status-' + String(status ?? 'unknown').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

export function statusBadge(status) {
    return h('span', {class: ['badge', statusClass(status)], text: humanize(status)});
}

export function humanize(value) {
    const text = String(value ?? '').replaceAll('_', ' ').toLowerCase();
    return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Pretty-printed JSON with token colours, built from text nodes only. */
export function jsonBlock(value) {
    const pre = h('pre', {class: 'json'});
    if (value === undefined) return append(pre, [h('span', {class: 'json-null', text: '—'})]);
    const text = JSON.stringify(value, null, 2) ?? String(value);
    const token = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
    let last = 0;
    for (const match of text.matchAll(token)) {
        if (match.index > last) pre.append(document.createTextNode(text.slice(last, match.index)));
        let kind = 'json-number';
        if (match[1]) kind = match[2] ? 'json-key' : 'json-string';
        else if (match[3]) kind = 'json-boolean';
        else if (match[0] === 'null') kind = 'json-null';
        pre.append(h('span', {class: kind, text: match[1] ?? match[0]}));
        if (match[2]) pre.append(document.createTextNode(match[2]));
        last = match.index + match[0].length;
    }
    if (last < text.length) pre.append(document.createTextNode(text.slice(last)));
    return pre;
}
