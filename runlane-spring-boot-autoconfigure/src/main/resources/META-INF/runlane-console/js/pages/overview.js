// Overview: queues with active runs per status, due runs and the oldest due age; runs finished per five minutes over
// the last hour; this instance's worker; schedules.
import {h, replace, statusClass, humanize} from '../dom.js';
import {get} from '../api.js';
import {every, markUpdated} from '../app.js';
import {formatClock, formatDuration, formatRelative} from '../format.js';

export function overviewPage(container) {
    const body = h('div', {class: 'stack'}, h('div', {class: 'loading', text: 'Loading…'}));
    container.append(
        h('div', {class: 'page-header page-header-inline'},
            h('h1', {text: 'Overview'}),
            h('span', {class: 'subtitle', text: 'Queues, throughput and workers of this environment · refreshes every 5 seconds'})),
        body);
    const load = async () => {
        try {
            render(body, await get('overview'));
            markUpdated();
        } catch (error) {
            replace(body, h('div', {class: 'alert alert-error', text: error.message}));
        }
    };
    load();
    every(5, load);
}

function render(body, overview) {
    const queues = overview.queues;
    const statuses = columns(queues);
    const active = sum(queues.flatMap(queue => Object.values(queue.counts)));
    const due = sum(queues.map(queue => queue.due));
    const oldest = Math.max(0, ...queues.map(queue => queue.oldestDueAgeMillis ?? 0));
    const intervals = overview.throughput.intervals;
    const succeeded = sum(intervals.map(i => i.succeeded));
    const failed = sum(intervals.map(i => i.failed));
    const cancelled = sum(intervals.map(i => i.cancelled));

    replace(body,
        h('section', {class: 'stats'},
            stat('Active runs', active, `${queues.length} queue${queues.length === 1 ? '' : 's'}`, '#/runs'),
            stat('Due now', due, due ? 'waiting for a worker' : 'nothing waiting', '#/runs'),
            stat('Oldest due', oldest ? formatDuration(oldest) : '—', oldest ? 'longest wait in a queue' : 'no due run', null, oldest > 60_000 ? 'warn' : null),
            stat('Finished (1 h)', succeeded + failed + cancelled, `${succeeded} succeeded`, '#/runs?since=1h'),
            stat('Failed (1 h)', failed, failed ? 'see failed runs' : 'no failures', '#/runs?status=FAILED&since=1h', failed ? 'bad' : null)),
        h('section', {class: 'card', id: 'queues'},
            h('div', {class: 'card-header'}, h('h2', {text: 'Queues'}), h('span', {class: 'muted', text: 'Active runs per status'})),
            queues.length === 0
                ? h('div', {class: 'empty-inline', text: 'No queues yet.'})
                : h('div', {class: 'table-wrap'}, queueTable(queues, statuses))),
        h('div', {class: 'grid-2'},
            h('section', {class: 'card', id: 'throughput'},
                h('div', {class: 'card-header'}, h('h2', {text: 'Throughput'}),
                    h('span', {class: 'muted', text: `Runs finished per ${overview.throughput.intervalMinutes} minutes, last hour`})),
                chart(intervals)),
            h('div', {class: 'stack'},
                workerCard(overview.worker, overview.leases),
                schedulesCard(overview.schedules))));
}

function stat(label, value, hint, href, tone) {
    const content = [h('div', {class: 'stat-label', text: label}), h('div', {class: 'stat-value', text: value}), h('div', {class: 'stat-hint', text: hint})];
    return href
        ? h('a', {class: ['stat', tone && 'stat-' + tone], href}, content)
        : h('div', {class: ['stat', tone && 'stat-' + tone]}, content);
}

function columns(queues) {
    const seen = [];
    for (const queue of queues) for (const status of Object.keys(queue.counts)) if (!seen.includes(status)) seen.push(status);
    return seen;
}

function queueTable(queues, statuses) {
    return h('table', {class: 'table'},
        h('thead', {}, h('tr', {},
            h('th', {text: 'Queue'}),
            statuses.map(status => h('th', {class: 'num'}, h('span', {class: ['dot', statusClass(status)]}), humanize(status))),
            h('th', {class: 'num', text: 'Due'}),
            h('th', {class: 'num', text: 'Oldest due'}),
            h('th', {class: 'num', text: 'Limit'}))),
        h('tbody', {}, queues.map(queue => h('tr', {dataset: {queue: queue.name}},
            h('td', {}, h('a', {href: '#/runs?queue=' + encodeURIComponent(queue.name), class: 'strong', text: queue.name})),
            statuses.map(status => {
                const count = queue.counts[status] ?? 0;
                return h('td', {class: ['num', count === 0 && 'zero']},
                    count === 0 ? '0' : h('a', {href: `#/runs?queue=${encodeURIComponent(queue.name)}&status=${encodeURIComponent(status)}`, text: count}));
            }),
            h('td', {class: ['num', queue.due === 0 && 'zero'], text: queue.due}),
            h('td', {class: ['num', (queue.oldestDueAgeMillis ?? 0) > 60_000 && 'warn-text'], text: queue.oldestDueAgeMillis === null ? '—' : formatDuration(queue.oldestDueAgeMillis)}),
            h('td', {class: 'num muted', text: queue.concurrencyLimit ?? '∞'})))));
}

function chart(intervals) {
    const max = Math.max(1, ...intervals.map(i => i.succeeded + i.failed + i.cancelled));
    const bars = intervals.map(interval => {
        const total = interval.succeeded + interval.failed + interval.cancelled;
        const column = h('div', {class: 'bar', title: `${formatClock(interval.start)}: ${interval.succeeded} succeeded, ${interval.failed} failed, ${interval.cancelled} cancelled`});
        for (const [kind, count] of [['cancelled', interval.cancelled], ['failed', interval.failed], ['succeeded', interval.succeeded]]) {
            if (count === 0) continue;
            const segment = h('div', {class: ['bar-segment', statusClass(kind.toUpperCase())]});
            segment.style.height = (count / max * 100) + '%';
            column.append(segment);
        }
        return h('div', {class: 'bar-slot'},
            h('div', {class: 'bar-count', text: total || ''}),
            h('div', {class: 'bar-track'}, column),
            h('div', {class: 'bar-label', text: formatClock(interval.start)}));
    });
    return h('div', {class: 'chart'},
        h('div', {class: 'bars'}, bars),
        h('div', {class: 'legend'},
            ['SUCCEEDED', 'FAILED', 'CANCELLED'].map(status => h('span', {class: 'legend-item'}, h('span', {class: ['dot', statusClass(status)]}), humanize(status)))));
}

function workerCard(worker, leases) {
    const card = h('section', {class: 'card', id: 'worker'},
        h('div', {class: 'card-header'}, h('h2', {text: 'Workers'}), h('span', {class: 'muted', text: 'This instance, and leases held by all'})));
    card.append(leasesList(leases, worker?.id));
    if (!worker) {
        card.append(h('div', {class: 'empty-inline', text: 'This instance runs no worker (runlane.worker.enabled=false).'}));
        return card;
    }
    card.append(h('dl', {class: 'facts facts-compact'},
        fact('Status', h('span', {class: ['badge', worker.running ? 'status-running' : 'status-cancelled'], text: worker.running ? 'Running' : 'Stopped'})),
        fact('In flight', worker.concurrency ? `${worker.inFlight} of ${worker.concurrency}` : String(worker.inFlight)),
        fact('Last poll', worker.lastPoll ? formatRelative(worker.lastPoll) : 'never'),
        fact('Worker id', h('code', {class: 'mono ellipsis', text: worker.id, title: worker.id}))));
    if (worker.lastPollFailure) {
        card.append(h('div', {class: 'alert alert-error'}, h('strong', {text: 'Last poll failed: '}), worker.lastPollFailure));
    }
    return card;
}

function schedulesCard(schedules) {
    const overdue = schedules.overdue.length === 0 ? 'none'
        : h('span', {class: 'warn-text', text: `${schedules.overdue.length}: ${schedules.overdue.join(', ')}`});
    return h('section', {class: 'card', id: 'schedules-summary'},
        h('div', {class: 'card-header'}, h('h2', {text: 'Schedules'}), h('a', {href: '#/schedules', text: 'View all'})),
        h('dl', {class: 'facts facts-compact'},
            fact('Schedules', schedules.total === 0 ? 'none' : `${schedules.total}${schedules.paused ? ` (${schedules.paused} paused)` : ''}`),
            fact('Overdue', overdue)));
}

function leasesList(leases, self) {
    if (leases.length === 0) return h('div', {class: 'leases-empty muted', id: 'leases', text: 'No worker holds a running attempt right now.'});
    return h('ul', {class: 'leases', id: 'leases'}, leases.map(lease => h('li', {class: 'lease'},
        h('span', {class: ['dot', 'status-running']}),
        h('code', {class: 'mono ellipsis lease-worker', text: lease.worker, title: lease.worker}),
        lease.worker === self ? h('span', {class: 'pill pill-light', text: 'this instance'}) : null,
        h('span', {class: 'lease-count', text: `${lease.runs} running`}))));
}

export function fact(label, value) {
    return h('div', {class: 'fact'}, h('dt', {text: label}), h('dd', {}, value ?? '—'));
}

function sum(values) {
    return values.reduce((total, value) => total + (value ?? 0), 0);
}
