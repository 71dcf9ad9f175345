// Run detail: facts, failure, actions, status timeline from events, attempts with durations, steps and signals when
// the run has them, payload and result pretty-printed. Fields named *Json hold JSON values embedded as they were
// stored (the API writes them raw), so they are shown as they are, never parsed from text again.
//
// The detail carries the newest page of each list (events, attempts, steps, signals) with its total and a cursor
// (S-CO-10). "Load more" appends the next older page from api/runs/{id}/<list>; the self-refresh reloads only the
// detail and keeps the older pages already shown, so it never downloads them again.
import {h, replace, statusBadge, statusClass, humanize, jsonBlock} from '../dom.js';
import {get, post} from '../api.js';
import {every, markUpdated, toast} from '../app.js';
import {confirmAction} from '../dialog.js';
import {fact} from './overview.js';
import {forkButton} from './fork.js';
import {failureStackBlock} from '../failure-stack.js';
import {waterfallSection} from '../waterfall.js';
import {between, formatAbsolute, formatAge, formatDuration, formatPrecise, formatRelative, shortId} from '../format.js';

const PAGE_SIZE = 50;
const GAP_PAGE_SIZE = 200;
const GAP_PAGES = 3;

/** Identifies an item within its list, so that pages and refreshes merge without duplicates. */
const KEYS = {
    events: event => String(event.sequence),
    attempts: attempt => String(attempt.attempt),
    steps: step => JSON.stringify([step.name, step.occurrence]),
    signals: signal => signal.id
};

export function runPage(container, {id}) {
    const body = h('div', {class: 'stack'}, h('div', {class: 'loading', text: 'Loading…'}));
    container.append(body);
    const lists = {};
    let detail = null;
    let active = true;
    let refreshing = false;
    let queue = Promise.resolve();
    // Refreshes and "Load more" run one after another, so a page never merges into a list a refresh is replacing.
    const serially = task => { queue = queue.then(task, task); return queue; };
    const show = () => render(body, detail, lists, loadMore, load);
    const load = () => {
        if (refreshing) return queue;
        refreshing = true;
        return serially(async () => {
            try {
                const fresh = await get('runs/' + encodeURIComponent(id));
                for (const name of Object.keys(KEYS)) {
                    lists[name] = await merge(id, name, lists[name], fresh[name]);
                }
                detail = fresh;
                active = !['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(fresh.run.status);
                show();
                markUpdated();
            } catch (error) {
                active = false;
                replace(body,
                    h('nav', {class: 'breadcrumb'}, h('a', {href: '#/runs', text: 'Runs'}), ' / ', h('span', {class: 'mono', text: id})),
                    h('div', {class: 'empty'}, h('h2', {text: error.status === 404 ? 'Run not found' : 'Could not load the run'}), h('p', {class: 'muted', text: error.message})));
            } finally {
                refreshing = false;
            }
        });
    };
    const loadMore = name => {
        if (!lists[name]?.cursor || lists[name].loading) return;
        lists[name].loading = true;
        show();
        serially(async () => {
            const list = lists[name];
            try {
                const page = await get(`runs/${encodeURIComponent(id)}/${name}`, {cursor: list.cursor, limit: PAGE_SIZE});
                list.items = union(name, list.items, page.items);
                list.cursor = page.nextCursor;
                list.extended = true;
            } catch (error) {
                toast(`Could not load more ${name}: ${error.message}`, 'error');
            } finally {
                list.loading = false;
                show();
            }
        });
    };
    load();
    follow(id, load, () => active, () => detail);
}

/**
 * Re-reads the run when its live stream (S-CO-26) says it or its history changed since the detail shown, and closes
 * the stream when the run ended or the page is left. When the server refuses the stream or it fails for good, the page
 * polls every 3 seconds instead.
 */
function follow(id, load, isActive, shown) {
    const poll = () => every(3, load, isActive);
    if (typeof EventSource !== 'function') return poll();
    const source = new EventSource(`api/runs/${encodeURIComponent(id)}/live`);
    let left = false;
    let latest = null;
    const instant = value => (value ? Date.parse(value) : null);
    const changed = () => {
        const detail = shown();
        if (latest === null) return false;
        if (!detail) return true;
        return instant(latest.updatedAt) !== instant(detail.run.updatedAt)
            || latest.lastEventSeq !== (detail.events.items[0]?.sequence ?? latest.lastEventSeq)
            || instant(latest.lastSignalAt) !== instant(detail.signals.items[0]?.sentAt);
    };
    // A change that lands while a read is under way is read again after it, once.
    const catchUp = async () => {
        for (let reads = 0; reads < 2 && changed(); reads++) await load();
    };
    window.addEventListener('hashchange', () => { left = true; source.close(); }, {once: true});
    source.addEventListener('run', event => {
        latest = JSON.parse(event.data);
        if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(latest.status)) source.close();
        catchUp();
    });
    source.addEventListener('gone', () => { source.close(); load(); });
    source.addEventListener('error', () => {
        if (source.readyState === EventSource.CLOSED && !left) poll();
    });
}

/**
 * The list after a refresh. Until older pages were loaded it is the fresh newest page. After, the fresh page is
 * joined to the items shown: it overlaps them unless more items arrived since than it holds, and then the items in
 * between are fetched (a few pages at most; beyond that the list starts again from the fresh page).
 */
async function merge(id, name, previous, fresh) {
    const key = KEYS[name];
    const start = {items: fresh.items, cursor: fresh.nextCursor, total: fresh.total, totalCapped: fresh.totalCapped,
        extended: false, loading: previous?.loading ?? false};
    if (!previous?.extended || previous.items.length === 0) return start;
    const newestShown = key(previous.items[0]);
    let items = fresh.items;
    let cursor = fresh.nextCursor;
    for (let page = 0; cursor && !items.some(item => key(item) === newestShown) && page < GAP_PAGES; page++) {
        const older = await get(`runs/${encodeURIComponent(id)}/${name}`, {cursor, limit: GAP_PAGE_SIZE});
        items = union(name, items, older.items);
        cursor = older.nextCursor;
    }
    if (!items.some(item => key(item) === newestShown)) {
        return {...start, items, cursor, extended: cursor !== fresh.nextCursor};
    }
    return {...start, items: union(name, items, previous.items), cursor: previous.cursor, extended: true};
}

/** `newer` followed by the items of `older` it does not hold; both newest first. */
function union(name, newer, older) {
    const key = KEYS[name];
    const seen = new Set(newer.map(key));
    return newer.concat(older.filter(item => !seen.has(key(item))));
}

/** A pending debounced run's window (S-DB-1): its key, the triggers folded into it, and when it starts. */
function debounceValue(debounce) {
    const folded = debounce.folds === 1 ? '1 trigger folded' : `${debounce.folds} triggers folded`;
    return h('span', {title: formatAbsolute(debounce.startsAt)},
        h('span', {class: 'mono', text: debounce.key}),
        h('span', {class: 'sep', text: '·'}),
        h('span', {text: `${folded}, starts ${formatRelative(debounce.startsAt)}`}));
}

function render(body, detail, lists, loadMore, reload) {
    const {run, actions} = detail;
    const {events, attempts, steps, signals} = lists;
    const result = run.resultJson ?? detail.resultJson;
    const open = document.activeElement;
    const openDetails = new Set([...body.querySelectorAll('details[open]')].map(d => d.dataset.key));
    replace(body,
        h('nav', {class: 'breadcrumb'}, h('a', {href: '#/runs', text: 'Runs'}), ' / ', h('span', {class: 'mono', text: run.id})),
        h('section', {class: 'run-header card'},
            h('div', {class: 'run-title'},
                h('div', {},
                    h('div', {class: 'run-heading'}, h('h1', {text: run.taskId, id: 'run-task'}), h('span', {id: 'run-status'}, statusBadge(run.status))),
                    h('div', {class: 'run-sub'},
                        h('span', {class: 'mono', text: run.id, id: 'run-id'}),
                        h('span', {class: 'sep', text: '·'}),
                        h('span', {text: 'queue '}), h('strong', {text: run.queue}),
                        h('span', {class: 'sep', text: '·'}),
                        h('span', {title: formatAbsolute(run.createdAt), text: 'created ' + formatRelative(run.createdAt)}))),
                actionBar(run, actions, reload)),
            h('dl', {class: 'facts'},
                fact('Attempts', attemptsValue(run)),
                fact('Created', formatAbsolute(run.createdAt)),
                fact(run.finishedAt ? 'Finished' : 'Due', formatAbsolute(run.finishedAt ?? run.runAt)),
                run.finishedAt ? fact('Duration', formatDuration(between(run.createdAt, run.finishedAt))) : fact('Age', formatAge(between(run.createdAt))),
                fact('Idempotency key', keyValue(run.idempotencyKey)),
                fact('Singleton key', keyValue(run.singletonKey)),
                run.concurrencyKey ? fact('Concurrency key', keyValue(run.concurrencyKey)) : null,
                detail.debounce ? fact('Debounce', debounceValue(detail.debounce)) : null,
                run.idempotencyRetainedUntil ? fact('Key retained until', formatAbsolute(run.idempotencyRetainedUntil)) : null,
                run.sourceRunId ? fact(humanize(run.sourceType ?? 'source') + ' of', h('a', {href: '#/runs/' + run.sourceRunId, class: 'mono', text: shortId(run.sourceRunId)})) : null,
                fact('Updated', formatAbsolute(run.updatedAt)))),
        run.failure ? failurePanel(run, detail.failureStack) : null,
        h('div', {class: 'grid-detail'},
            h('div', {class: 'stack'},
                section('Timeline', count(events, 'event', 'events'), [timeline(events.items), more('events', events, loadMore)], 'timeline'),
                section('Attempts', attempts.total ? count(attempts, 'attempt', 'attempts') : 'none yet',
                    [attemptsTable(attempts.items), more('attempts', attempts, loadMore)], 'attempts')),
            h('div', {class: 'stack'},
                section('Payload', null, jsonBlock(run.payloadJson), 'payload'),
                result !== undefined && result !== null ? section('Result', null, jsonBlock(result), 'result') : null,
                stepsSection(run, steps, actions, loadMore),
                waitsSection(steps.items),
                signals.items.length ? section('Signals', count(signals, 'signal', 'signals'), [signalsTable(signals.items), more('signals', signals, loadMore)], 'signals') : null)));
    body.querySelector('.grid-detail')?.before(...[waterfallSection(run, attempts.items, steps.items)].filter(Boolean));
    for (const element of body.querySelectorAll('details')) if (openDetails.has(element.dataset.key)) element.open = true;
    if (open?.id && document.getElementById(open.id)) document.getElementById(open.id).focus();
}

/** "3,000 completed · 100 shown", "10,000+ signals · 50 shown", "2 events". */
function count(list, one, many) {
    const total = list.total.toLocaleString() + (list.totalCapped ? '+' : '');
    const noun = list.total === 1 && !list.totalCapped ? one : many;
    const shown = list.items.length < list.total || list.totalCapped ? ` · ${list.items.length.toLocaleString()} shown` : '';
    return `${total} ${noun}${shown}`;
}

/** The list's "Load more" button, while older items remain. */
function more(name, list, loadMore) {
    if (!list.cursor) return null;
    return h('div', {class: 'load-more'},
        h('button', {class: 'button button-small', id: 'load-more-' + name, disabled: list.loading,
            text: list.loading ? 'Loading…' : 'Load more', on: {click: () => loadMore(name)}}));
}

function section(title, hint, content, id) {
    return h('section', {class: 'card', id},
        h('div', {class: 'card-header'}, h('h2', {text: title}), hint ? h('span', {class: 'muted', text: hint}) : null),
        content);
}

/**
 * "1 of 3": the attempts that spent budget (S-EX-34). Waits and releases resume an attempt without spending budget,
 * so a run that waited five times shows "1 of 3 · 6 starts".
 */
function attemptsValue(run) {
    const spent = run.spentAttempts ?? run.attempts;
    const value = h('span', {id: 'run-attempts', text: `${spent} of ${run.maxAttempts}`});
    if (run.attempts === spent) return value;
    return h('span', {title: 'Waits and releases resume the attempt they parked without spending retry budget'},
        value, h('span', {class: 'muted', id: 'run-starts', text: ` · ${run.attempts} start${run.attempts === 1 ? '' : 's'}`}));
}

function keyValue(key) {
    return key === null || key === undefined ? h('span', {class: 'muted', text: 'none'}) : h('code', {class: 'mono key', text: key});
}

/**
 * The stored failure. It is the run's own only when the run failed; otherwise it is left over from an earlier attempt
 * that was retried (or will be), or from the attempt a cancellation ended, and is shown as the last failure, neutral.
 * Its stack trace (S-EX-35) is a collapsed block at the bottom.
 */
function failurePanel(run, stack) {
    const failure = run.failure;
    const own = run.status === 'FAILED';
    const label = own ? 'Failure'
        : run.status === 'RETRYING' ? 'Last failure (retry scheduled)'
        : ['CANCELLED', 'CANCELLATION_REQUESTED'].includes(run.status) ? 'Last failure'
        : 'Last failure (retried)';
    return h('section', {class: ['alert', own ? 'alert-error' : 'alert-neutral', 'failure'], id: 'failure', dataset: {own: String(own)}},
        h('div', {class: 'failure-head'},
            h('strong', {text: label, id: 'failure-label'}),
            h('code', {class: 'mono', text: failure.code}),
            failure.exceptionClass ? h('code', {class: 'mono muted', text: failure.exceptionClass}) : null),
        failure.message ? h('pre', {class: 'failure-message', text: failure.message}) : null,
        failureStackBlock(stack));
}

function actionBar(run, actions, reload) {
    if (!actions) return null;
    const buttons = [];
    const act = async (label, path, body, done) => {
        try {
            const answer = await post(path, body);
            toast(done, 'success');
            if (answer?.run?.id && answer.run.id !== run.id) location.hash = '#/runs/' + answer.run.id;
            else reload();
        } catch (error) {
            toast(`${label} failed: ${error.message}`, 'error');
        }
    };
    if (actions.cancel) {
        buttons.push(h('button', {class: 'button button-danger', id: 'action-cancel', text: 'Cancel run', on: {click: async () => {
            const reason = await confirmAction({
                title: 'Cancel this run?',
                message: [h('span', {text: 'The run of '}), h('strong', {text: run.taskId}), h('span', {id: 'cancel-consequence', text: cancelConsequence(run)})],
                confirmLabel: 'Cancel run', danger: true, reason: true
            });
            if (reason !== null) act('Cancel', `runs/${run.id}/cancel`, {reason}, 'Cancellation recorded');
        }}}));
    }
    if (actions.resume) {
        buttons.push(h('button', {class: 'button button-primary', id: 'action-resume', text: 'Resume', on: {click: async () => {
            const ok = await confirmAction({
                title: 'Resume this run in place?',
                message: [h('span', {text: 'The run of '}), h('strong', {text: run.taskId}), h('span', {text: ' goes back to the queue with the same id, keys and a fresh attempt budget. Its recorded steps are replayed, not run again; the step that failed runs again with the same step id.'})],
                confirmLabel: 'Resume'
            });
            if (ok !== null) act('Resume', `runs/${run.id}/resume`, {}, 'Run resumed');
        }}}));
    }
    if (actions.retry) {
        buttons.push(h('button', {class: 'button button-primary', id: 'action-retry', text: 'Retry', on: {click: async () => {
            const ok = await confirmAction({title: 'Retry this failed run?', message: 'A new run of the same task and payload is created with a fresh attempt budget.', confirmLabel: 'Retry'});
            if (ok !== null) act('Retry', `runs/${run.id}/retry`, {}, 'Retry created');
        }}}));
    }
    if (actions.rerun) {
        buttons.push(h('button', {class: 'button', id: 'action-rerun', text: 'Rerun', on: {click: async () => {
            const ok = await confirmAction({title: 'Rerun this run?', message: 'A new run of the same task and payload is created.', confirmLabel: 'Rerun'});
            if (ok !== null) act('Rerun', `runs/${run.id}/rerun`, {}, 'Rerun created');
        }}}));
    }
    if (actions.resetKey) {
        buttons.push(h('button', {class: 'button', id: 'action-reset-key', text: 'Reset key', on: {click: async () => {
            const ok = await confirmAction({
                title: 'Reset the idempotency key?',
                message: [h('span', {text: 'The next trigger with key '}), h('code', {class: 'mono', text: run.idempotencyKey}), h('span', {text: ' creates a new run instead of returning this one.'})],
                confirmLabel: 'Reset key', danger: true
            });
            if (ok !== null) act('Reset', 'idempotency-keys/reset', {taskId: run.taskId, key: run.idempotencyKey}, 'Key reset');
        }}}));
    }
    return buttons.length ? h('div', {class: 'actions', id: 'actions'}, buttons) : null;
}

/**
 * What cancelling does, by status and by whether the run ever started (S-CO-12): a running handler is asked to stop; a
 * waiting run, or one that started before and is due again, is cancelled and does not resume or run again; only a run
 * that never started "will not start".
 */
export function cancelConsequence(run) {
    if (run.status === 'RUNNING') return ' is running: cancellation is requested and the handler sees it at its next check.';
    const started = run.attempts > 0;
    if (run.status === 'WAITING') {
        return started ? ' is waiting: it is cancelled now and will not resume. Steps it completed are not undone. This cannot be undone.'
            : ' is waiting for the run before it: it is cancelled now and will not start. This cannot be undone.';
    }
    if (started) return ' has started before: it is cancelled now and will not run again. Steps it completed are not undone. This cannot be undone.';
    return ' will not start. This cannot be undone.';
}

/** Events newest first; each shows the time since the event before it, when that one is loaded. */
function timeline(events) {
    return h('ol', {class: 'timeline'}, events.map((event, index) => {
        const previous = events[index + 1];
        return h('li', {class: 'timeline-item', dataset: {type: event.type}},
            h('span', {class: ['timeline-dot', statusClass(event.status)]}),
            h('div', {class: 'timeline-body'},
                h('div', {class: 'timeline-line'},
                    h('strong', {class: 'event-type', text: humanize(event.type)}),
                    statusBadge(event.status),
                    h('span', {class: 'muted', title: formatAbsolute(event.createdAt), text: formatPrecise(event.createdAt)}),
                    event.actor ? h('span', {class: 'muted'}, 'by ', h('span', {class: 'mono actor', text: event.actor, title: event.actor})) : null,
                    previous ? h('span', {class: 'timeline-gap', text: '+' + formatDuration(between(previous.createdAt, event.createdAt))}) : null),
                event.detail ? h('div', {class: 'timeline-detail', text: event.detail}) : null));
    }));
}

/**
 * Attempts newest first. A resumption (after a wait or a release) is marked: it continues the attempt before it.
 * An open attempt shows "Running"; every ended one its outcome and the event that ended it (S-EX-34).
 */
function attemptsTable(attempts) {
    if (attempts.length === 0) return h('div', {class: 'empty-inline', text: 'No attempt has started.'});
    return h('div', {class: 'table-wrap'}, h('table', {class: 'table table-attempts'},
        h('thead', {}, h('tr', {}, ['#', 'Worker', 'Started', 'Duration', 'Outcome', 'Detail'].map(text => h('th', {text})))),
        h('tbody', {}, attempts.map(attempt => h('tr', {class: 'attempt-row', dataset: {attempt: attempt.attempt, endedBy: attempt.endedBy ?? '', resumption: String(Boolean(attempt.resumption))}},
            h('td', {class: 'num nowrap'}, String(attempt.attempt),
                attempt.resumption ? h('span', {class: 'tag', title: 'Resumed the run after the attempt before it waited or was released; spends no retry budget', text: 'resumed'}) : null),
            h('td', {class: 'mono small', text: attempt.worker, title: attempt.worker}),
            h('td', {class: 'nowrap', title: formatAbsolute(attempt.startedAt), text: formatPrecise(attempt.startedAt)}),
            h('td', {class: 'nowrap', text: attempt.endedAt ? formatDuration(between(attempt.startedAt, attempt.endedAt)) : 'running…'}),
            h('td', {class: 'outcome-cell'}, attempt.outcome ? statusBadge(attempt.outcome) : statusBadge('RUNNING'),
                attempt.endedBy && attempt.endedBy !== attempt.outcome ? h('span', {class: 'muted small ended-by', text: humanize(attempt.endedBy)}) : null),
            h('td', {class: 'detail-cell', text: attempt.detail ?? ''}))))));
}

/**
 * The handler's own steps; the steps the engine records for waits (tagged `waiting`, S-CO-11) are in the Waits card.
 * "Load more" pages through both, since they are one list on the server.
 */
function stepsSection(run, steps, actions, loadMore) {
    if (!steps.items.length) return null;
    const own = steps.items.filter(step => !step.waiting);
    const waits = steps.items.length - own.length;
    const hint = count(steps, 'completed', 'completed') + (waits ? ` · ${waits.toLocaleString()} in Waits` : '');
    if (!own.length && !steps.cursor) return null;
    return section('Steps', hint, [own.length ? stepsTable(run, own, actions?.fork) : h('div', {class: 'empty-inline', text: 'No step of the handler is shown yet.'}),
        more('steps', steps, loadMore)], 'steps');
}

const WAIT_KINDS = {signal: 'Signal', result: 'Run result', sleep: 'Sleep'};

/**
 * The engine's waits, latest first: one row per wait (kind, subject, occurrence) joining the step that recorded its
 * deadline (a sleep's end) with the one that recorded its outcome.
 */
function waitsSection(steps) {
    const waits = new Map();
    for (const step of steps) {
        if (!step.waiting) continue;
        const key = JSON.stringify([step.waiting.kind, step.waiting.subject, step.occurrence]);
        const wait = waits.get(key) ?? {kind: step.waiting.kind, subject: step.waiting.subject, occurrence: step.occurrence};
        wait[step.waiting.role === 'outcome' ? 'outcome' : 'deadline'] = step;
        waits.set(key, wait);
    }
    if (!waits.size) return null;
    const rows = [...waits.values()];
    return section('Waits', `${rows.length.toLocaleString()} wait${rows.length === 1 ? '' : 's'}`,
        h('div', {class: 'table-wrap'}, h('table', {class: 'table table-waits'},
            h('thead', {}, h('tr', {}, ['Wait', 'Kind', 'Deadline', 'Outcome'].map(text => h('th', {text})))),
            h('tbody', {}, rows.map(wait => h('tr', {class: 'wait-row', dataset: {kind: wait.kind, subject: wait.subject}},
                h('td', {class: wait.kind === 'result' ? 'mono small' : 'strong'}, wait.kind === 'result'
                    ? h('a', {href: '#/runs/' + encodeURIComponent(wait.subject), text: shortId(wait.subject), title: wait.subject})
                    : h('span', {text: wait.subject}),
                    wait.occurrence > 1 ? h('span', {class: 'muted', text: ' #' + wait.occurrence}) : null),
                h('td', {}, h('span', {class: 'tag wait-kind', text: WAIT_KINDS[wait.kind] ?? wait.kind})),
                h('td', {class: 'nowrap wait-deadline'}, typeof wait.deadline?.resultJson === 'string'
                    ? h('span', {title: formatAbsolute(wait.deadline.resultJson), text: formatPrecise(wait.deadline.resultJson)})
                    : h('span', {class: 'muted', text: '—'})),
                h('td', {class: 'wait-outcome'}, waitOutcome(wait))))))), 'waits');
}

/** "Received" (with the payload), "Timed out", the awaited run's status, or for a sleep whether it has ended. */
function waitOutcome(wait) {
    if (wait.kind === 'sleep') {
        const end = wait.deadline?.resultJson;
        return h('span', {class: 'muted', text: typeof end === 'string' && new Date(end) <= new Date() ? 'Slept' : 'Sleeping'});
    }
    const outcome = wait.outcome?.resultJson;
    if (outcome === undefined || outcome === null) return h('span', {class: 'badge status-waiting', text: 'Waiting'});
    if (wait.kind === 'signal') {
        if (outcome.timedOut) return h('span', {class: 'badge status-failed', text: 'Timed out'});
        return h('details', {dataset: {key: 'wait-' + JSON.stringify([wait.subject, wait.occurrence])}},
            h('summary', {text: 'Received'}), jsonBlock(outcome.payload ?? null));
    }
    if (outcome.status === 'TIMED_OUT') return h('span', {class: 'badge status-failed', text: 'Timed out'});
    return typeof outcome.status === 'string' ? statusBadge(outcome.status) : jsonBlock(outcome);
}

/**
 * Steps latest first. When the run may be forked, the first occurrence of each name offers "Fork from here" (a fork
 * names its step by name, from its first occurrence), and the table ends with "Fork after all steps".
 */
function stepsTable(run, steps, canFork) {
    const headings = ['Step', '#', 'Completed', 'Result', canFork ? 'Fork' : null].filter(Boolean);
    return h('div', {class: 'table-wrap'}, h('table', {class: 'table'},
        h('thead', {}, h('tr', {}, headings.map(text => h('th', {text})))),
        h('tbody', {}, steps.map((step, index) => h('tr', {class: 'step-row', dataset: {stepName: step.name, occurrence: step.occurrence}},
            h('td', {class: 'strong', text: step.name}),
            h('td', {class: 'num', text: step.occurrence}),
            h('td', {title: formatAbsolute(step.completedAt), text: formatPrecise(step.completedAt)}),
            h('td', {}, step.resultJson === null || step.resultJson === undefined ? h('span', {class: 'muted', text: '—'})
                : h('details', {dataset: {key: 'step-' + KEYS.steps(step)}}, h('summary', {text: 'result'}), jsonBlock(step.resultJson))),
            canFork ? h('td', {}, h('div', {class: 'row-actions'}, step.occurrence === 1
                ? forkButton(run, step.name, {id: 'fork-step-' + index, label: 'Fork from here', small: true})
                : h('span', {class: 'muted', title: 'A fork starts from the first occurrence of a step name', text: '—'}))) : null))),
        canFork ? h('tfoot', {}, h('tr', {}, h('td', {attrs: {colspan: headings.length}}, h('div', {class: 'row-actions'},
            forkButton(run, null, {id: 'fork-all', label: 'Fork after all steps', small: true}))))) : null));
}

function signalsTable(signals) {
    return h('div', {class: 'table-wrap'}, h('table', {class: 'table table-signals'},
        h('thead', {}, h('tr', {}, ['Signal', 'Sent', 'Consumed', 'Deduplication key', 'Payload'].map(text => h('th', {text})))),
        h('tbody', {}, signals.map(signal => h('tr', {class: 'signal-row'},
            h('td', {class: 'strong', text: signal.name}),
            h('td', {title: formatAbsolute(signal.sentAt), text: formatPrecise(signal.sentAt)}),
            h('td', {}, signal.consumedAt ? h('span', {title: formatAbsolute(signal.consumedAt), text: formatPrecise(signal.consumedAt)}) : h('span', {class: 'badge status-waiting', text: 'Pending'})),
            h('td', {class: 'mono small', text: signal.deduplicationKey ?? '—'}),
            h('td', {}, h('details', {dataset: {key: 'signal-' + signal.id}}, h('summary', {text: 'payload'}), jsonBlock(signal.payloadJson))))))));
}
