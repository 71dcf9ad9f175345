// Tasks: the declared tasks with their declaration, schedules and the figures of their runs over a range (S-CO-20),
// and charts of throughput, failures and duration per interval for all runs, one queue or one task (S-CO-21). An
// unrestricted console also offers to trigger each task with a payload typed in a dialog (S-CO-25).
import {h, replace, humanize} from '../dom.js';
import {get, post} from '../api.js';
import {every, markUpdated, toast} from '../app.js';
import {barChart, lineChart} from '../chart.js';
import {formatAbsolute, formatClock, formatDuration} from '../format.js';

const RANGES = ['1h', '24h', '7d'];

/** An interval's length: 1 min, 30 min, 4 h. */
function interval(millis) {
    return millis < 3_600_000 ? `${Math.round(millis / 60_000)} min` : `${Math.round(millis / 3_600_000)} h`;
}

export function tasksPage(container, {params, info}) {
    const range = RANGES.includes(params.get('range')) ? params.get('range') : '24h';
    const scope = params.get('task') ? {kind: 'task', value: params.get('task')}
        : params.get('queue') ? {kind: 'queue', value: params.get('queue')} : {kind: 'all', value: null};
    const charts = h('section', {class: 'card', id: 'charts'}, h('div', {class: 'loading', text: 'Loading…'}));
    const table = h('section', {class: 'card card-flush', id: 'tasks'}, h('div', {class: 'loading', text: 'Loading…'}));
    container.append(
        h('div', {class: 'page-header'},
            h('div', {},
                h('h1', {text: 'Tasks'}),
                h('p', {class: 'subtitle', text: 'Declared tasks and their runs over the range · refreshes every 10 seconds'})),
            h('div', {class: 'range-picker', id: 'range-picker', attrs: {role: 'group', 'aria-label': 'Range'}},
                RANGES.map(value => h('a', {
                    class: ['button', 'button-small', value === range && 'button-primary'],
                    href: route(value, scope), text: value, dataset: {range: value}
                })))),
        h('div', {class: 'stack'}, charts, table));
    const load = async () => {
        try {
            const query = {range};
            if (scope.kind !== 'all') query[scope.kind] = scope.value;
            const [tasks, series] = await Promise.all([get('tasks', {range}), get('charts', query)]);
            renderCharts(charts, series, scope, range, info, tasks.tasks);
            renderTasks(table, tasks, scope, range, info?.access === 'unrestricted');
            markUpdated();
        } catch (error) {
            replace(charts, h('div', {class: 'alert alert-error', text: error.message}));
        }
    };
    load();
    every(10, load);
}

function route(range, scope) {
    const params = new URLSearchParams({range});
    if (scope.kind !== 'all') params.set(scope.kind, scope.value);
    return '#/tasks?' + params.toString();
}

function renderCharts(card, series, scope, range, info, tasks) {
    const select = h('select', {id: 'chart-scope', class: 'input', attrs: {'aria-label': 'Charts of'}, on: {
        change: event => {
            const [kind, ...rest] = event.target.value.split(':');
            location.hash = route(range, kind === 'all' ? {kind} : {kind, value: rest.join(':')});
        }
    }});
    const option = (value, text) => {
        const item = h('option', {value, text});
        item.selected = value === (scope.kind === 'all' ? 'all' : `${scope.kind}:${scope.value}`);
        return item;
    };
    select.append(option('all', 'All runs'));
    for (const queue of info?.queues ?? []) select.append(option('queue:' + queue, 'Queue ' + queue));
    for (const task of tasks) select.append(option('task:' + task.id, 'Task ' + task.id));
    const buckets = series.buckets;
    const label = bucket => range === '7d' ? new Date(bucket.start).toLocaleDateString(undefined, {weekday: 'short', day: 'numeric'}) : formatClock(bucket.start);
    const when = bucket => `${formatAbsolute(bucket.start)} (${interval(series.bucketMillis)})`;
    const points = buckets.map(bucket => ({...bucket, other: bucket.finished - bucket.failed}));
    const finished = buckets.reduce((sum, bucket) => sum + bucket.finished, 0);
    const failed = buckets.reduce((sum, bucket) => sum + bucket.failed, 0);
    const title = scope.kind === 'all' ? 'All runs' : `${humanize(scope.kind)} ${scope.value}`;
    replace(card,
        h('div', {class: 'card-header'},
            h('h2', {}, 'Charts · ', h('span', {id: 'chart-title', text: title})),
            h('div', {class: 'chart-controls'},
                h('span', {class: 'muted', id: 'chart-summary', text: `${finished} finished, ${failed} failed, per ${interval(series.bucketMillis)}`}),
                select)),
        h('div', {class: 'grid-3'},
            chartBlock('Throughput', 'Runs finished per interval',
                barChart(points, [{key: 'other', className: 'chart-ok'}, {key: 'failed', className: 'chart-bad'}], {
                    id: 'chart-throughput', label,
                    describe: bucket => `${when(bucket)}: ${bucket.finished} finished, ${bucket.failed} failed`
                })),
            chartBlock('Failures', 'Runs failed per interval',
                barChart(points, [{key: 'failed', className: 'chart-bad'}], {
                    id: 'chart-failures', label, describe: bucket => `${when(bucket)}: ${bucket.failed} failed`
                })),
            chartBlock('Duration', 'p50 and p95, trigger to finish',
                lineChart(points, [{key: 'p50Millis', className: 'chart-p50'}, {key: 'p95Millis', className: 'chart-p95'}], {
                    id: 'chart-duration', label, formatValue: formatDuration,
                    describe: bucket => `${when(bucket)}: p50 ${formatDuration(bucket.p50Millis)}, p95 ${formatDuration(bucket.p95Millis)}`
                }))));
}

function chartBlock(title, hint, svg) {
    return h('div', {class: 'chart-block'},
        h('div', {class: 'chart-block-title'}, h('strong', {text: title}), h('span', {class: 'muted small', text: ' ' + hint})),
        svg);
}

function renderTasks(card, page, scope, range, unrestricted) {
    if (page.tasks.length === 0) {
        replace(card, h('div', {class: 'empty', id: 'no-tasks'}, h('h2', {text: 'No tasks'}),
            h('p', {class: 'muted', text: 'Declare one with @Task on a TaskHandler or TaskFunction bean.'})));
        return;
    }
    replace(card, h('div', {class: 'table-wrap'}, h('table', {class: 'table table-tasks'},
        h('thead', {}, h('tr', {},
            h('th', {text: 'Task'}), h('th', {text: 'Declaration'}), h('th', {text: 'Schedules'}),
            h('th', {class: 'num', text: `Finished (${page.range})`}), h('th', {class: 'num', text: 'Active'}),
            h('th', {class: 'num', text: 'Success'}), h('th', {class: 'num', text: 'p50'}), h('th', {class: 'num', text: 'p95'}),
            h('th', {class: 'num', text: 'Runs'}))),
        h('tbody', {}, page.tasks.map(task => taskRow(task, scope, range, unrestricted))))));
}

function taskRow(task, scope, range, unrestricted) {
    const figures = task.figures;
    const active = Object.values(figures.active).reduce((sum, count) => sum + count, 0);
    return h('tr', {class: ['task-row', scope.kind === 'task' && scope.value === task.id && 'selected'], dataset: {task: task.id}},
        h('td', {},
            h('a', {class: 'strong task-chart-link', href: route(range, {kind: 'task', value: task.id}), text: task.id, title: 'Show the charts of this task'}),
            h('div', {class: 'muted small'}, 'queue ', h('a', {class: 'queue-chart-link', href: route(range, {kind: 'queue', value: task.queue}), text: task.queue}))),
        h('td', {class: 'declaration'}, declaration(task), throttledKeys(task)),
        h('td', {class: 'schedules'}, task.schedules.length === 0 ? h('span', {class: 'muted', text: '—'})
            : task.schedules.map(schedule => h('div', {class: 'small', dataset: {schedule: schedule.id}},
                h('span', {class: 'strong', text: schedule.id}), ' ', h('code', {class: 'mono', text: schedule.expression}),
                h('span', {class: 'muted', text: ` ${schedule.zone}${schedule.paused ? ' · paused' : ''}`})))),
        h('td', {class: 'num finished'},
            h('div', {class: 'strong', text: figures.finishedTotal}),
            h('div', {class: 'muted small', text: `${figures.finished.SUCCEEDED} ok · ${figures.finished.FAILED} failed · ${figures.finished.CANCELLED} cancelled`})),
        h('td', {class: 'num active', text: active, title: Object.entries(figures.active).map(([status, count]) => `${humanize(status)}: ${count}`).join(', ')}),
        h('td', {class: ['num', 'success-rate', figures.successRate !== null && figures.successRate < 0.9 && 'warn-text'], text: figures.successRate === null ? '—' : `${(figures.successRate * 100).toFixed(1)} %`}),
        h('td', {class: 'num p50', text: formatDuration(figures.p50Millis)}),
        h('td', {class: 'num p95', text: formatDuration(figures.p95Millis)}),
        h('td', {class: 'num'}, h('div', {class: 'row-actions task-actions'},
            unrestricted ? h('button', {class: 'button button-small trigger-task', type: 'button', text: 'Trigger', dataset: {task: task.id},
                on: {click: () => triggerDialog(task)}}) : null,
            h('a', {class: 'runs-link', href: '#/runs?task=' + encodeURIComponent(task.id), text: 'Runs →'}))));
}

/**
 * Triggers the task with the payload typed as JSON (S-CO-25): the server reads it as the task's payload type and
 * validates it like any trigger; a refusal (text that is not JSON, a field that does not map, a constraint) is shown in
 * the dialog, which stays open. A trigger opens the run it created or returned.
 */
function triggerDialog(task) {
    const payload = h('textarea', {class: 'input mono', id: 'trigger-payload', rows: 8, spellcheck: false, value: '{}', attrs: {'aria-label': 'Payload (JSON)'}});
    const key = h('input', {class: 'input', id: 'trigger-key', type: 'text', placeholder: "the task's resolver, if any", attrs: {'aria-label': 'Idempotency key'}});
    const delay = h('input', {class: 'input', id: 'trigger-delay', type: 'text', placeholder: 'none, or 30s, 5m, PT1H', attrs: {'aria-label': 'Delay'}});
    const error = h('div', {class: 'alert alert-error trigger-error', id: 'trigger-error', hidden: true, attrs: {role: 'alert'}});
    const submit = h('button', {type: 'submit', class: 'button button-primary', id: 'trigger-submit', text: 'Trigger run'});
    const dialog = h('dialog', {class: 'dialog dialog-wide', id: 'trigger-dialog'});
    const close = () => {
        dialog.close();
        dialog.remove();
    };
    dialog.append(h('form', {class: 'dialog-body', attrs: {method: 'dialog'}, on: {submit: async event => {
        event.preventDefault();
        submit.disabled = true;
        error.hidden = true;
        try {
            const answer = await post(`tasks/${encodeURIComponent(task.id)}/trigger`,
                {payloadText: payload.value, idempotencyKey: key.value, delay: delay.value});
            close();
            toast(answer.outcome === 'CREATED' ? 'Run created' : `${humanize(answer.outcome)}: no run was created`, 'success');
            location.hash = '#/runs/' + answer.run.id;
        } catch (failure) {
            error.textContent = failure.message;
            error.hidden = false;
            submit.disabled = false;
        }
    }}},
        h('h2', {class: 'dialog-title'}, 'Trigger ', h('span', {class: 'mono', id: 'trigger-task', text: task.id}), '?'),
        h('div', {class: 'dialog-message', text: `A run of this task on queue ${task.queue} is created from the payload below, validated like any trigger. Its idempotency and singleton keys apply.`}),
        h('label', {class: 'field trigger-field'}, h('span', {class: 'field-label', text: 'Payload (JSON)'}), payload),
        h('div', {class: 'trigger-options'},
            h('label', {class: 'field'}, h('span', {class: 'field-label', text: 'Idempotency key'}), key),
            h('label', {class: 'field'}, h('span', {class: 'field-label', text: 'Delay'}), delay)),
        error,
        h('div', {class: 'dialog-actions'},
            h('button', {type: 'button', class: 'button', text: 'Cancel', id: 'trigger-cancel', on: {click: close}}),
            submit)));
    dialog.addEventListener('cancel', event => {
        event.preventDefault();
        close();
    });
    document.body.append(dialog);
    dialog.showModal();
    payload.focus();
}

function declaration(task) {
    const parts = [];
    const backoff = task.backoffMillis === null ? 'configured backoff'
        : task.backoffMultiplier > 0 ? `backoff ${formatDuration(task.backoffMillis)} ×${task.backoffMultiplier}${task.maxBackoffMillis ? ' ≤ ' + formatDuration(task.maxBackoffMillis) : ''}`
            : `backoff ${formatDuration(task.backoffMillis)}`;
    parts.push(`${task.maxAttempts} attempt${task.maxAttempts === 1 ? '' : 's'}, ${backoff}`);
    parts.push(task.timeoutMillis === null ? 'configured timeout' : `timeout ${formatDuration(task.timeoutMillis)}`);
    if (task.keyResolvers.length) parts.push('keys: ' + task.keyResolvers.join(', '));
    if (task.idempotencyKeyTtl) parts.push('key TTL ' + task.idempotencyKeyTtl);
    parts.push('on singleton conflict ' + humanize(task.onSingletonConflict).toLowerCase());
    if (task.priority) parts.push('priority ' + task.priority);
    if (task.debounce) parts.push(`debounce ${formatDuration(task.debounce.periodMillis)}${task.debounce.maxWaitMillis ? ', max wait ' + formatDuration(task.debounce.maxWaitMillis) : ''} (${humanize(task.debounce.mode).toLowerCase()})`);
    if (task.rateLimit) parts.push(`rate limit ${task.rateLimit.limit} per ${formatDuration(task.rateLimit.periodMillis)}`);
    if (task.throttle) parts.push(`throttle ${task.throttle.limit} per ${formatDuration(task.throttle.periodMillis)}`);
    if (task.noRetryFor.length) parts.push('no retry for ' + task.noRetryFor.map(name => name.substring(name.lastIndexOf('.') + 1)).join(', '));
    return parts.map(text => h('div', {class: 'small', text}));
}

/** A throttled task's keys with runs waiting to start: backlog, starts in the window and next free slot (S-TH-1). */
function throttledKeys(task) {
    if (!task.throttle || task.throttledKeys.length === 0) return [];
    return h('div', {class: 'throttled-keys small', dataset: {task: task.id}},
        h('div', {class: 'muted', text: 'Throttled keys'}),
        task.throttledKeys.map(entry => h('div', {class: 'throttled-key', dataset: {key: entry.key}},
            h('code', {class: 'mono', text: entry.key === '' ? '(whole task)' : entry.key}),
            h('span', {class: 'muted', text: ` ${entry.waiting} waiting · ${entry.startsInWindow} of ${task.throttle.limit} started in the last ${formatDuration(task.throttle.periodMillis)} · `}),
            h('span', {class: 'next-free-slot', text: entry.nextFreeSlot === null ? 'may start now' : 'next start ' + formatAbsolute(entry.nextFreeSlot)}))));
}
