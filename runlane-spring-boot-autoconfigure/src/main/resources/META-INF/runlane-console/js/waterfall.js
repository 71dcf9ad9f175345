// The run's waterfall (S-CO-24): its attempts, the handler's steps and the engine's waits as bars on one time axis,
// from the run's creation to its end (or now). Bars are divs placed with CSSOM properties (element.style.left/width),
// which the Content-Security-Policy allows, unlike style attributes (S-CO-7); labels and tooltips are text (S-CO-3).
//
// The engine records when a step completed, not when it started: a step is drawn from the later of its attempt's
// start and the completion of the step recorded before it in that attempt (the handler runs its steps one after
// another). A wait is drawn from the step that recorded its deadline (a sleep's end), taken when the wait began, to
// the step that recorded its outcome, or to the sleep's end; its internal steps are not rows of their own.
import {h, humanize, statusClass} from './dom.js';
import {formatDuration, formatPrecise, shortId} from './format.js';

const WAIT_LABELS = {signal: 'Signal', result: 'Run result', sleep: 'Sleep'};

const millis = instant => new Date(instant).getTime();

// The part of an instant below the millisecond, in nanoseconds: steps recorded within one millisecond of each other
// (steps share commits, S-ST-16) keep their order, which the API's newest-first lists would otherwise reverse.
const nanosWithinMillis = instant => {
    const fraction = /\.\d{3}(\d{0,6})/.exec(instant);
    return fraction ? Number(fraction[1].padEnd(6, '0')) : 0;
};

/** The waterfall card, or null while no attempt has started. */
export function waterfallSection(run, attempts, steps, now = Date.now()) {
    if (!attempts.length) return null;
    const end = run.finishedAt ? millis(run.finishedAt) : now;
    const rows = waterfallRows(run, attempts, steps, end);
    const origin = millis(run.createdAt);
    const span = Math.max(1, end - origin, ...rows.map(row => row.end - origin));
    const place = (bar, start, stop) => {
        bar.style.left = `${(100 * (start - origin) / span).toFixed(3)}%`;
        bar.style.width = `${(100 * Math.max(0, stop - start) / span).toFixed(3)}%`;
        bar.style.minWidth = '2px';
        return bar;
    };
    const axis = h('div', {class: 'wf-axis'});
    for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
        const tick = h('span', {class: 'wf-tick', text: '+' + formatDuration(span * fraction)});
        tick.style.left = `${100 * fraction}%`;
        axis.append(tick);
    }
    return h('section', {class: 'card', id: 'waterfall'},
        h('div', {class: 'card-header'}, h('h2', {text: 'Waterfall'}),
            h('span', {class: 'muted', text: `${formatDuration(span)} from creation${run.finishedAt ? ' to end' : ' to now'}`})),
        h('div', {class: 'wf'},
            h('div', {class: 'wf-row wf-head'}, h('div', {class: 'wf-label'}), h('div', {class: 'wf-track'}, axis), h('div', {class: 'wf-duration'})),
            rows.map(row => h('div', {class: ['wf-row', 'wf-' + row.type], dataset: {type: row.type, name: row.name}},
                h('div', {class: 'wf-label', title: row.name}, h('span', {class: 'wf-name', text: row.label}),
                    row.tag ? h('span', {class: 'tag', text: row.tag}) : null),
                h('div', {class: 'wf-track'},
                    place(h('div', {class: ['wf-bar', row.className, row.open ? 'wf-open' : null], title: tooltip(row)}), row.start, row.end)),
                h('div', {class: 'wf-duration', text: formatDuration(row.end - row.start) + (row.open ? '…' : '')})))));
}

/**
 * The rows, in order of their start: each attempt followed by the steps and waits it ran. Exported for reading, not
 * used elsewhere.
 */
export function waterfallRows(run, attempts, steps, end) {
    const ordered = [...attempts].sort((a, b) => millis(a.startedAt) - millis(b.startedAt));
    const attemptOf = instant => {
        let found = null;
        for (const attempt of ordered) {
            if (millis(attempt.startedAt) <= instant && (!attempt.endedAt || instant <= millis(attempt.endedAt))) found = attempt;
        }
        return found;
    };
    const rows = ordered.map(attempt => ({
        type: 'attempt', name: String(attempt.attempt), label: `Attempt ${attempt.attempt}`, tag: attempt.resumption ? 'resumed' : null,
        start: millis(attempt.startedAt), end: attempt.endedAt ? millis(attempt.endedAt) : end, open: !attempt.endedAt,
        className: statusClass(attempt.outcome ?? 'RUNNING'),
        detail: attempt.endedAt ? humanize(attempt.endedBy ?? attempt.outcome) : 'running', order: 0
    }));
    const byCompletion = [...steps].sort((a, b) => millis(a.completedAt) - millis(b.completedAt)
        || nanosWithinMillis(a.completedAt) - nanosWithinMillis(b.completedAt));
    const previous = new Map();
    const waits = new Map();
    for (const step of byCompletion) {
        const completed = millis(step.completedAt);
        const attempt = attemptOf(completed);
        const since = previous.get(attempt);
        previous.set(attempt, completed);
        if (step.waiting) {
            const key = JSON.stringify([step.waiting.kind, step.waiting.subject, step.occurrence]);
            const wait = waits.get(key) ?? {kind: step.waiting.kind, subject: step.waiting.subject, occurrence: step.occurrence};
            wait[step.waiting.role === 'outcome' ? 'outcome' : 'deadline'] = step;
            waits.set(key, wait);
            continue;
        }
        const start = attempt ? Math.max(millis(attempt.startedAt), since ?? -Infinity) : completed;
        rows.push({type: 'step', name: step.name, label: step.name, tag: step.occurrence > 1 ? '#' + step.occurrence : null,
            start, end: completed, className: 'wf-step-bar', detail: 'step', order: 1});
    }
    for (const wait of waits.values()) rows.push(waitRow(wait, ordered, end));
    return rows.sort((a, b) => a.start - b.start || a.order - b.order || a.end - b.end);
}

/** A wait from its deadline's record to its outcome's, a sleep to its end; still open, to the run's end or now. */
function waitRow(wait, attempts, end) {
    const outcome = wait.outcome ? millis(wait.outcome.completedAt) : null;
    let start = wait.deadline ? millis(wait.deadline.completedAt) : null;
    if (start === null) {
        const parked = attempts.filter(attempt => attempt.endedAt && millis(attempt.endedAt) <= outcome).pop();
        start = parked ? millis(parked.endedAt) : outcome;
    }
    let stop = outcome;
    let open = false;
    let detail;
    if (wait.kind === 'sleep') {
        const until = typeof wait.deadline?.resultJson === 'string' ? millis(wait.deadline.resultJson) : end;
        open = until > end;
        stop = Math.min(until, end);
        detail = open ? 'sleeping' : 'slept';
    } else if (stop === null) {
        stop = end;
        open = true;
        detail = 'waiting';
    } else {
        const result = wait.outcome.resultJson;
        detail = result?.timedOut || result?.status === 'TIMED_OUT' ? 'timed out'
            : wait.kind === 'signal' ? 'received' : typeof result?.status === 'string' ? humanize(result.status) : 'ended';
    }
    const subject = wait.kind === 'result' ? shortId(wait.subject) : wait.subject;
    return {type: 'wait', name: wait.subject, label: `${WAIT_LABELS[wait.kind] ?? wait.kind}: ${subject}`,
        tag: wait.occurrence > 1 ? '#' + wait.occurrence : null, start, end: Math.max(start, stop), open,
        className: 'wf-wait-bar', detail, order: 2};
}

function tooltip(row) {
    const range = `${formatPrecise(row.start)} → ${row.open ? 'now' : formatPrecise(row.end)}`;
    const since = row.type === 'step' ? ' (since the attempt started or the step before it completed)' : '';
    return `${row.label} · ${row.detail} · ${formatDuration(row.end - row.start)}${since}\n${range}`;
}
