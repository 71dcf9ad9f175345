// The console's shell: header, navigation, hash routing and the refresh loop of the current page.
import {h, replace} from './dom.js';
import {get} from './api.js';
import {overviewPage} from './pages/overview.js';
import {runsPage} from './pages/runs.js';
import {runPage} from './pages/run.js';
import {schedulesPage} from './pages/schedules.js';
import {tasksPage} from './pages/tasks.js';

const routes = [
    {pattern: /^\/?$/, nav: 'overview', page: overviewPage},
    {pattern: /^\/runs\/([^/?]+)$/, nav: 'runs', page: runPage},
    {pattern: /^\/runs$/, nav: 'runs', page: runsPage},
    {pattern: /^\/schedules$/, nav: 'schedules', page: schedulesPage},
    {pattern: /^\/tasks$/, nav: 'tasks', page: tasksPage}
];

const state = {info: null, current: null, timer: null, generation: 0};

const app = document.getElementById('app');
const main = h('main', {class: 'content', id: 'content'});
const navLinks = {};
const updated = h('span', {class: 'updated', id: 'updated'});
const toasts = h('div', {class: 'toasts', attrs: {role: 'status', 'aria-live': 'polite'}});

function header(info) {
    const nav = h('nav', {class: 'nav'});
    for (const [key, label, href] of [['overview', 'Overview', '#/'], ['runs', 'Runs', '#/runs'], ['tasks', 'Tasks', '#/tasks'], ['schedules', 'Schedules', '#/schedules']]) {
        navLinks[key] = h('a', {href, text: label, class: 'nav-link', id: 'nav-' + key});
        nav.append(navLinks[key]);
    }
    const access = info.access === 'unrestricted'
        ? h('span', {class: 'pill pill-warn', text: 'Unrestricted', title: 'Operator actions are enabled', id: 'access'})
        : h('span', {class: 'pill', text: 'Read-only', title: 'runlane.console.access=unrestricted enables actions', id: 'access'});
    return h('header', {class: 'topbar'},
        h('div', {class: 'topbar-inner'},
            h('a', {class: 'brand', href: '#/'},
                h('span', {class: 'brand-mark', attrs: {'aria-hidden': 'true'}}),
                h('span', {class: 'brand-name', text: 'Runlane'})),
            nav,
            h('div', {class: 'topbar-meta'},
                updated,
                h('span', {class: 'pill pill-env', title: 'runlane.environment'}, 'env ', h('strong', {text: info.environment})),
                access)));
}

export function toast(message, kind = 'info') {
    const item = h('div', {class: ['toast', 'toast-' + kind], text: message});
    toasts.append(item);
    setTimeout(() => item.remove(), 5000);
}

export function consoleInfo() {
    return state.info;
}

export function markUpdated() {
    updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
}

/** Runs `refresh` now and every `seconds` while the page is shown (and `enabled()` says so). */
export function every(seconds, refresh, enabled = () => true) {
    const generation = state.generation;
    clearInterval(state.timer);
    state.timer = setInterval(() => {
        if (generation === state.generation && enabled() && !document.hidden && !document.querySelector('dialog[open]')) {
            refresh();
        }
    }, seconds * 1000);
}

function route() {
    const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
    const [path, query] = splitQuery(location.hash.replace(/^#/, ''));
    state.generation++;
    clearInterval(state.timer);
    for (const candidate of routes) {
        const match = path.match(candidate.pattern);
        if (match) {
            for (const [key, link] of Object.entries(navLinks)) link.classList.toggle('active', key === candidate.nav);
            const params = new URLSearchParams(query);
            const container = h('div', {class: 'page'});
            replace(main, container);
            candidate.page(container, {params, id: match[1] ? decodeURIComponent(match[1]) : null, info: state.info});
            window.scrollTo(0, 0);
            return;
        }
    }
    replace(main, h('div', {class: 'empty'}, h('h2', {text: 'Page not found'}), h('p', {}, 'No console page at ', h('code', {text: hash}), '.')));
}

function splitQuery(hash) {
    const index = hash.indexOf('?');
    return index < 0 ? [hash, ''] : [hash.slice(0, index), hash.slice(index + 1)];
}

async function start() {
    try {
        state.info = await get('console');
    } catch (error) {
        replace(app, h('div', {class: 'fatal'}, h('h1', {text: 'Runlane console'}), h('p', {text: error.message})));
        return;
    }
    document.body.classList.toggle('unrestricted', state.info.access === 'unrestricted');
    replace(app, header(state.info), main, toasts);
    window.addEventListener('hashchange', route);
    route();
}

start();
