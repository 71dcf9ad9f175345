// Runs: filters by status, task, queue, source, schedule, priority range, failure message prefix and creation time; lookup
// by run id or key prefix; cursor paging; auto-refresh; in an unrestricted console, bulk resume and cancel of the
// filtered list (bulk.js).
import {h, replace, statusBadge, humanize} from '../dom.js';
import {get, ApiError} from '../api.js';
import {every, markUpdated} from '../app.js';
import {bulkPanel} from './bulk.js';
import {between, formatAbsolute, formatDuration, formatRelative, shortId, UUID_PATTERN} from '../format.js';

const PAGE_SIZE = 25;
const SINCE = [['', 'Any time'], ['15m', 'Last 15 minutes'], ['1h', 'Last hour'], ['24h', 'Last 24 hours'], ['7d', 'Last 7 days']];
const SINCE_MILLIS = {'15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000};
const AUTO_REFRESH = 'runlane.console.runs.autoRefresh';

export function runsPage(container, {params, info}) {
    const filters = {
        status: params.get('status') ?? '',
        task: params.get('task') ?? '',
        queue: params.get('queue') ?? '',
        source: params.get('source') ?? '',
        schedule: params.get('schedule') ?? '',
        minPriority: params.get('minPriority') ?? '',
        maxPriority: params.get('maxPriority') ?? '',
        message: params.get('message') ?? '',
        since: params.get('since') ?? '',
        lookup: params.get('lookup') ?? ''
    };
    const cursors = [null];
    let page = 0;
    let matchedKey = null;
    const results = h('div', {class: 'card card-flush', id: 'runs'}, h('div', {class: 'loading', text: 'Loading…'}));
    const auto = h('input', {type: 'checkbox', id: 'auto-refresh', checked: localStorage.getItem(AUTO_REFRESH) !== 'false'});
    auto.addEventListener('change', () => localStorage.setItem(AUTO_REFRESH, String(auto.checked)));

    const navigate = changes => {
        const next = {...filters, ...changes};
        const query = new URLSearchParams(Object.entries(next).filter(([, value]) => value));
        location.hash = '#/runs' + (query.size ? '?' + query : '');
    };
    const select = (name, label, options) => h('label', {class: 'field'},
        h('span', {class: 'field-label', text: label}),
        h('select', {class: 'input', id: 'filter-' + name, on: {change: event => navigate({[name]: event.target.value})}},
            options.map(([value, text]) => h('option', {value, text, selected: value === filters[name]}))));
    const lookup = h('input', {class: 'input', id: 'lookup', type: 'search', value: filters.lookup,
        placeholder: 'Run id, or the start of a key', attrs: {autocomplete: 'off', spellcheck: 'false'}});
    const schedule = h('input', {class: 'input', id: 'filter-schedule', type: 'search', value: filters.schedule,
        placeholder: 'Schedule id', attrs: {autocomplete: 'off', spellcheck: 'false'}});
    const priority = (id, value, placeholder, label) => h('input', {class: 'input input-priority', id, type: 'number', value,
        placeholder, attrs: {min: -100, max: 100, step: 1, 'aria-label': label}});
    const minPriority = priority('filter-min-priority', filters.minPriority, '-100', 'Lowest priority');
    const maxPriority = priority('filter-max-priority', filters.maxPriority, '100', 'Highest priority');
    const message = h('input', {class: 'input', id: 'filter-message', type: 'search', value: filters.message,
        placeholder: 'Starts with…', attrs: {autocomplete: 'off', spellcheck: 'false'}});

    container.append(
        h('div', {class: 'page-header'},
            h('div', {}, h('h1', {text: 'Runs'}), h('p', {class: 'subtitle', text: 'Newest first.'})),
            h('label', {class: 'toggle', title: 'Reload this page of runs every 5 seconds'}, auto, h('span', {class: 'toggle-track'}), 'Auto-refresh')),
        h('form', {class: 'filters card', id: 'filters', on: {submit: event => {
            event.preventDefault();
            navigate({lookup: lookup.value.trim(), schedule: schedule.value.trim(), minPriority: minPriority.value.trim(),
                maxPriority: maxPriority.value.trim(), message: message.value});
        }}},
            h('label', {class: 'field field-wide'}, h('span', {class: 'field-label', text: 'Look up'}), lookup),
            select('status', 'Status', [['', 'All statuses'], ...info.statuses.map(status => [status, humanize(status)])]),
            select('task', 'Task', [['', 'All tasks'], ...info.tasks.map(task => [task.id, task.id])]),
            select('queue', 'Queue', [['', 'All queues'], ...info.queues.map(queue => [queue, queue])]),
            select('source', 'Source', [['', 'All sources'], ...info.sources.map(source => [source, humanize(source)])]),
            h('label', {class: 'field'}, h('span', {class: 'field-label', text: 'Schedule'}), schedule),
            h('div', {class: 'field', title: 'Runs of a priority from … to …, inclusive (-100 to 100)'},
                h('span', {class: 'field-label', text: 'Priority'}),
                h('div', {class: 'field-range'}, minPriority, h('span', {class: 'muted', text: 'to'}), maxPriority)),
            h('label', {class: 'field', title: 'Runs whose failure message starts with this text (case-sensitive)'},
                h('span', {class: 'field-label', text: 'Failure message'}), message),
            select('since', 'Created', SINCE),
            h('div', {class: 'field field-buttons'},
                h('button', {type: 'submit', class: 'button button-primary', text: 'Find', id: 'find'}),
                h('button', {type: 'button', class: 'button', text: 'Clear', id: 'clear', on: {click: () => { location.hash = '#/runs'; }}}))),
        info.access === 'unrestricted' ? bulkPanel(filters.status, () => bulkFilter(filters, matchedKey, info), () => load()) : null,
        results);

    const load = async () => {
        try {
            const {runs, nextCursor, matched} = await fetchRuns(filters, cursors[page]);
            if (runs === null) return;
            matchedKey = matched;
            cursors[page + 1] = nextCursor;
            render(results, runs, matched, page, nextCursor !== null,
                () => { page--; load(); },
                () => { page++; load(); });
            markUpdated();
        } catch (error) {
            replace(results, h('div', {class: 'alert alert-error', text: error.message}));
        }
    };
    load();
    every(5, load, () => auto.checked);
}

/**
 * The list's filter for a bulk action, with its creation bound fixed now and a description for the confirmation. A
 * lookup filters by the key it matched (the singleton key when the list found runs by it, else the idempotency key).
 */
function bulkFilter(filters, matchedKey, info) {
    const key = filters.lookup ? (matchedKey === 'singleton key' ? 'singletonKey' : 'idempotencyKey') : null;
    const priorities = filters.minPriority && filters.minPriority === filters.maxPriority ? 'priority ' + filters.minPriority
        : filters.minPriority || filters.maxPriority ? 'priority ' + (filters.minPriority || '-100') + ' to ' + (filters.maxPriority || '100') : null;
    const since = SINCE.find(([value]) => value === filters.since)?.[1];
    const parts = [
        filters.status ? 'status ' + humanize(filters.status) : null,
        filters.task ? 'task ' + filters.task : null,
        filters.queue ? 'queue ' + filters.queue : null,
        filters.source ? 'source ' + humanize(filters.source) : null,
        filters.schedule ? 'schedule ' + filters.schedule : null,
        priorities,
        filters.message ? 'failure message starting with ' + filters.message : null,
        key ? (key === 'singletonKey' ? 'singleton key starting with ' : 'idempotency key starting with ') + filters.lookup : null,
        filters.since ? 'created ' + since.toLowerCase() : null
    ].filter(Boolean);
    return {
        status: filters.status || null,
        taskId: filters.task || null,
        queue: filters.queue || null,
        source: filters.source || null,
        scheduleId: filters.schedule || null,
        // As typed: the server reads the numbers, and refuses what is not one rather than acting on more runs.
        minPriority: filters.minPriority || null,
        maxPriority: filters.maxPriority || null,
        failureMessagePrefix: filters.message || null,
        idempotencyKeyPrefix: key === 'idempotencyKey' ? filters.lookup : null,
        singletonKeyPrefix: key === 'singletonKey' ? filters.lookup : null,
        createdFrom: filters.since ? new Date(Date.now() - SINCE_MILLIS[filters.since]).toISOString() : null,
        description: parts.length ? parts.join(' · ') : 'every run in environment ' + info.environment
    };
}

/**
 * The page of runs the filters and the lookup select: the runs whose idempotency key starts with the lookup, else those
 * whose singleton key does (S-CO-27); a run id opens its detail page instead.
 */
async function fetchRuns(filters, cursor) {
    const params = new URLSearchParams({limit: PAGE_SIZE});
    for (const name of ['status', 'task', 'queue', 'source', 'schedule', 'minPriority', 'maxPriority']) if (filters[name]) params.set(name, filters[name]);
    if (filters.message) params.set('failureMessagePrefix', filters.message);
    if (filters.since) params.set('createdFrom', new Date(Date.now() - SINCE_MILLIS[filters.since]).toISOString());
    if (cursor) params.set('cursor', cursor);
    const lookup = filters.lookup;
    if (!lookup) return {...await get('runs', params), matched: null};
    if (UUID_PATTERN.test(lookup)) {
        try {
            const detail = await get('runs/' + encodeURIComponent(lookup));
            location.hash = '#/runs/' + detail.run.id;
            return {runs: null};
        } catch (error) {
            if (!(error instanceof ApiError && error.status === 404)) throw error;
            return {runs: [], nextCursor: null, matched: 'run id'};
        }
    }
    const byIdempotencyKey = await get('runs', withParam(params, 'idempotencyKeyPrefix', lookup));
    if (byIdempotencyKey.runs.length > 0 || cursor) return {...byIdempotencyKey, matched: 'idempotency key'};
    return {...await get('runs', withParam(params, 'singletonKeyPrefix', lookup)), matched: 'singleton key'};
}

function withParam(params, name, value) {
    const copy = new URLSearchParams(params);
    copy.set(name, value);
    return copy;
}

function render(results, runs, matched, page, hasNext, previous, next) {
    const note = matched ? h('div', {class: 'lookup-note', id: 'lookup-note'}, 'Looked up by ', h('strong', {text: matched}),
        matched === 'run id' ? null : ' prefix') : null;
    if (runs.length === 0) {
        replace(results, note, h('div', {class: 'empty'}, h('h2', {text: 'No runs'}), h('p', {class: 'muted', text: 'No run matches these filters.'})));
        return;
    }
    replace(results,
        note,
        h('div', {class: 'table-wrap'},
            h('table', {class: 'table table-runs'},
                h('thead', {}, h('tr', {},
                    h('th', {text: 'Status'}), h('th', {text: 'Run'}), h('th', {text: 'Task'}), h('th', {text: 'Queue'}),
                    h('th', {class: 'num', text: 'Priority'}), h('th', {text: 'Key'}), h('th', {class: 'num', text: 'Attempts'}), h('th', {text: 'Created'}),
                    h('th', {class: 'num', text: 'Duration'}))),
                h('tbody', {}, runs.map(row)))),
        h('div', {class: 'pager'},
            h('span', {class: 'muted', text: `Page ${page + 1} · ${runs.length} run${runs.length === 1 ? '' : 's'}`}),
            h('div', {class: 'pager-buttons'},
                h('button', {class: 'button', id: 'page-newer', text: '← Newer', disabled: page === 0, on: {click: previous}}),
                h('button', {class: 'button', id: 'page-older', text: 'Older →', disabled: !hasNext, on: {click: next}}))));
}

function row(run) {
    const key = run.idempotencyKey ?? run.singletonKey;
    return h('tr', {class: 'run-row', dataset: {runId: run.id, status: run.status}, on: {click: event => {
        if (!(event.target instanceof HTMLAnchorElement)) location.hash = '#/runs/' + run.id;
    }}},
        h('td', {}, statusBadge(run.status)),
        h('td', {}, h('a', {href: '#/runs/' + run.id, class: 'mono run-link', text: shortId(run.id), title: run.id})),
        h('td', {class: 'strong', text: run.taskId}),
        h('td', {text: run.queue}),
        h('td', {class: ['num', 'priority-cell', run.priority > 0 ? 'priority-high' : run.priority < 0 ? 'priority-low' : null],
            dataset: {priority: run.priority}, text: run.priority > 0 ? '+' + run.priority : String(run.priority)}),
        h('td', {class: 'key-cell'}, key === null || key === undefined ? h('span', {class: 'muted', text: '—'})
            : h('span', {class: 'mono key', text: key, title: (run.idempotencyKey !== null ? 'Idempotency key: ' : 'Singleton key: ') + key})),
        h('td', {class: 'num', title: run.attempts !== (run.spentAttempts ?? run.attempts) ? `${run.attempts} starts: waits and releases spend no budget` : null,
            text: `${run.spentAttempts ?? run.attempts}/${run.maxAttempts}`}),
        h('td', {title: formatAbsolute(run.createdAt), text: formatRelative(run.createdAt)}),
        h('td', {class: 'num', text: run.finishedAt ? formatDuration(between(run.createdAt, run.finishedAt)) : '—'}));
}
