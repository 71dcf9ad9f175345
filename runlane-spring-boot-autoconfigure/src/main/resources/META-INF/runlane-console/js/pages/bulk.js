// Bulk resume and cancel of the runs list's current filter (S-RV-4, S-RV-5). The confirmation says what will be acted
// on: the filter, and how many runs it selects in a status the action applies to (counted through api/runs, at most
// MAX_RUNS). The post sends the same filter with maxRuns set to that count, and the answer (matched, acted, skipped
// with reasons) is shown in the page. Every stored string is shown as text (S-CO-3).
import {h, replace, humanize} from '../dom.js';
import {get, post} from '../api.js';
import {toast} from '../app.js';
import {confirmAction} from '../dialog.js';
import {shortId} from '../format.js';

/** The most runs one confirmation acts on. */
export const MAX_RUNS = 1000;

const COUNT_PAGE = 500;
const SKIPPED_SHOWN = 20;

const ACTIONS = {
    resume: {
        label: 'Resume all matching', verb: 'Resume', done: 'Resumed', path: 'runs/resume-all', danger: false,
        statuses: ['FAILED', 'CANCELLED'],
        effect: 'Each goes back to the queue in place, with the same id, keys and recorded steps and a fresh attempt budget. A run that cannot be resumed now is skipped with the reason.'
    },
    cancel: {
        label: 'Cancel all matching', verb: 'Cancel', done: 'Cancelled or asked to stop', path: 'runs/cancel-all', danger: true,
        statuses: ['QUEUED', 'SCHEDULED', 'RUNNING', 'RETRYING', 'RELEASED', 'WAITING'],
        effect: 'A waiting run is cancelled at once, a running one is asked to stop (reason "cancelled in bulk"). This cannot be undone.'
    }
};

/**
 * The bulk panel of the runs page. `filter()` answers the list's current filter: {status, taskId, queue, source,
 * scheduleId, minPriority, maxPriority, failureMessagePrefix, idempotencyKeyPrefix, singletonKeyPrefix, createdFrom,
 * description}; `done()` refreshes the list.
 */
export function bulkPanel(status, filter, done) {
    const result = h('div', {class: 'bulk-result', id: 'bulk-result', attrs: {'aria-live': 'polite'}});
    const button = name => {
        const action = ACTIONS[name];
        const applies = !status || action.statuses.includes(status);
        return h('button', {class: ['button', action.danger ? 'button-danger' : 'button-primary'], id: 'bulk-' + name, text: action.label,
            disabled: !applies, title: applies ? null : `No run in status ${humanize(status)} can be ${name === 'resume' ? 'resumed' : 'cancelled'}`,
            on: {click: () => act(action, filter(), result, done)}});
    };
    return h('section', {class: 'card bulk', id: 'bulk'},
        h('div', {class: 'bulk-bar'},
            h('span', {class: 'muted', text: 'Act on every run this filter selects:'}),
            h('div', {class: 'bulk-buttons'}, button('resume'), button('cancel'))),
        result);
}

async function act(action, filter, result, done) {
    const statuses = filter.status ? [filter.status] : action.statuses;
    let counted;
    try {
        counted = await count(filter, statuses);
    } catch (error) {
        toast(`Could not count the matching runs: ${error.message}`, 'error');
        return;
    }
    if (counted.count === 0) {
        replace(result, h('div', {class: 'alert alert-neutral', id: 'bulk-outcome', text: `No run this filter selects can be ${action.verb === 'Resume' ? 'resumed' : 'cancelled'}.`}));
        return;
    }
    const ok = await confirmAction({
        title: `${action.verb} ${counted.count.toLocaleString()} run${counted.count === 1 ? '' : 's'}?`,
        message: [
            h('p', {id: 'bulk-scope', text: counted.more
                ? `At least ${MAX_RUNS.toLocaleString()} runs match; the newest ${MAX_RUNS.toLocaleString()} are acted on.`
                : `${counted.count.toLocaleString()} run${counted.count === 1 ? '' : 's'} in status ${statuses.map(humanize).join(', ')} match; at most that many are acted on, newest first.`}),
            h('p', {}, h('strong', {text: 'Filter: '}), h('span', {id: 'bulk-filter', text: filter.description})),
            h('p', {text: action.effect})],
        confirmLabel: action.verb + ' runs', danger: action.danger
    });
    if (ok === null) return;
    try {
        const answer = await post(action.path, {
            statuses: filter.status ? [filter.status] : [],
            taskIds: filter.taskId ? [filter.taskId] : [],
            queues: filter.queue ? [filter.queue] : [],
            sources: filter.source ? [filter.source] : [],
            scheduleId: filter.scheduleId ?? null,
            minPriority: filter.minPriority ?? null,
            maxPriority: filter.maxPriority ?? null,
            failureMessagePrefix: filter.failureMessagePrefix ?? null,
            idempotencyKeyPrefix: filter.idempotencyKeyPrefix ?? null,
            singletonKeyPrefix: filter.singletonKeyPrefix ?? null,
            createdFrom: filter.createdFrom ?? null,
            maxRuns: counted.count
        });
        replace(result, outcome(action, answer));
    } catch (error) {
        replace(result, h('div', {class: 'alert alert-error', id: 'bulk-outcome', text: `${action.verb} failed: ${error.message}`}));
    }
    done();
}

/** How many runs of the filter are in one of `statuses`, counted up to MAX_RUNS through the list API. */
async function count(filter, statuses) {
    const params = new URLSearchParams({limit: COUNT_PAGE, status: statuses.join(',')});
    if (filter.taskId) params.set('task', filter.taskId);
    if (filter.queue) params.set('queue', filter.queue);
    if (filter.source) params.set('source', filter.source);
    if (filter.scheduleId) params.set('schedule', filter.scheduleId);
    if (filter.minPriority !== null && filter.minPriority !== undefined) params.set('minPriority', filter.minPriority);
    if (filter.maxPriority !== null && filter.maxPriority !== undefined) params.set('maxPriority', filter.maxPriority);
    if (filter.failureMessagePrefix) params.set('failureMessagePrefix', filter.failureMessagePrefix);
    if (filter.idempotencyKeyPrefix) params.set('idempotencyKeyPrefix', filter.idempotencyKeyPrefix);
    if (filter.singletonKeyPrefix) params.set('singletonKeyPrefix', filter.singletonKeyPrefix);
    if (filter.createdFrom) params.set('createdFrom', filter.createdFrom);
    let total = 0;
    let cursor = null;
    do {
        if (cursor) params.set('cursor', cursor);
        const page = await get('runs', params);
        total += page.runs.length;
        cursor = page.nextCursor;
    } while (cursor && total < MAX_RUNS);
    return {count: Math.min(total, MAX_RUNS), more: total > MAX_RUNS || (total >= MAX_RUNS && cursor !== null)};
}

function outcome(action, answer) {
    const skipped = Object.entries(answer.skipped ?? {});
    const reasons = new Map();
    for (const [, reason] of skipped) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    return h('div', {class: ['alert', skipped.length ? 'alert-neutral' : 'alert-success'], id: 'bulk-outcome',
        dataset: {matched: answer.matched, acted: answer.acted, skipped: skipped.length}},
        h('strong', {text: `${action.done}: ${answer.acted} of ${answer.matched} matching run${answer.matched === 1 ? '' : 's'}.`}),
        skipped.length ? h('div', {class: 'bulk-reasons'}, `${skipped.length} skipped: `,
            [...reasons].map(([reason, n], i) => [i ? ', ' : '', h('code', {class: 'mono', text: reason}), ` × ${n}`])) : null,
        skipped.length ? h('ul', {class: 'bulk-skipped'}, skipped.slice(0, SKIPPED_SHOWN).map(([id, reason]) =>
            h('li', {}, h('a', {href: '#/runs/' + id, class: 'mono', text: shortId(id), title: id}), ' ', h('span', {class: 'muted', text: reason})))) : null,
        skipped.length > SKIPPED_SHOWN ? h('div', {class: 'muted', text: `and ${skipped.length - SKIPPED_SHOWN} more`}) : null);
}
