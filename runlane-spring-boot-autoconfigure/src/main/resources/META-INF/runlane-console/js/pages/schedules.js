// Schedules: next and last fire, paused state, skips, overdue ones; pause, resume and trigger now when unrestricted.
import {h, replace, statusBadge, humanize} from '../dom.js';
import {get, post} from '../api.js';
import {every, markUpdated, toast} from '../app.js';
import {confirmAction} from '../dialog.js';
import {formatAbsolute, formatRelative} from '../format.js';

export function schedulesPage(container) {
    const body = h('div', {class: 'card card-flush', id: 'schedules'}, h('div', {class: 'loading', text: 'Loading…'}));
    container.append(
        h('div', {class: 'page-header page-header-inline'},
            h('h1', {text: 'Schedules'}),
            h('span', {class: 'subtitle', text: 'Recurring triggers of this environment · refreshes every 5 seconds'})),
        body);
    const load = async () => {
        try {
            render(body, (await get('schedules')).schedules, load);
            markUpdated();
        } catch (error) {
            replace(body, h('div', {class: 'alert alert-error', text: error.message}));
        }
    };
    load();
    every(5, load);
}

function render(body, schedules, reload) {
    if (schedules.length === 0) {
        replace(body, h('div', {class: 'empty', id: 'no-schedules'},
            h('div', {class: 'empty-icon', attrs: {'aria-hidden': 'true'}}),
            h('h2', {text: 'No schedules'}),
            h('p', {class: 'muted', text: 'Declare one with @Schedule on a task, under runlane.schedules.<id>, or with RunlaneTemplate.schedules().upsert(…).'})));
        return;
    }
    const anyActions = schedules.some(schedule => schedule.actions.pause || schedule.actions.resume || schedule.actions.trigger);
    replace(body, h('div', {class: 'table-wrap'}, h('table', {class: 'table'},
        h('thead', {}, h('tr', {},
            ['Schedule', 'Task', 'When', 'Next fire', 'Last fire', 'State', 'Skipped'].map(text => h('th', {text, class: text === 'Skipped' ? 'num' : null})),
            anyActions ? h('th', {class: 'num', text: 'Actions'}) : null)),
        h('tbody', {}, schedules.map(schedule => h('tr', {dataset: {schedule: schedule.id}},
            h('td', {}, h('a', {class: 'strong schedule-runs', href: '#/runs?schedule=' + encodeURIComponent(schedule.id), text: schedule.id, title: 'Runs of this schedule'}),
                h('div', {class: 'muted small', text: schedule.declared ? 'declared' : 'created at run time'})),
            h('td', {}, h('a', {href: '#/runs?task=' + encodeURIComponent(schedule.taskId), text: schedule.taskId})),
            h('td', {}, h('code', {class: 'mono', text: schedule.expression}), h('div', {class: 'muted small', text: `${schedule.zone} · overlap ${humanize(schedule.overlap)} · catch-up ${humanize(schedule.catchUp)}`})),
            h('td', {title: formatAbsolute(schedule.nextFireAt)},
                schedule.paused ? h('span', {class: 'muted', text: 'paused'}) : formatRelative(schedule.nextFireAt),
                schedule.overdue ? h('span', {class: 'badge status-failed overdue', text: 'Overdue'}) : null),
            h('td', {title: formatAbsolute(schedule.lastFireAt)},
                schedule.lastRunId ? h('a', {href: '#/runs/' + schedule.lastRunId, text: formatRelative(schedule.lastFireAt)}) : formatRelative(schedule.lastFireAt),
                schedule.lastRunStatus ? h('span', {class: 'inline-badge'}, statusBadge(schedule.lastRunStatus)) : null),
            h('td', {}, h('span', {class: ['badge', schedule.paused ? 'status-released' : 'status-succeeded'], text: schedule.paused ? 'Paused' : 'Active'})),
            h('td', {class: 'num', text: schedule.skippedCount}),
            anyActions ? h('td', {class: 'num'}, actions(schedule, reload)) : null))))));
}

function actions(schedule, reload) {
    const act = async (action, done) => {
        try {
            const answer = await post(`schedules/${encodeURIComponent(schedule.id)}/${action}`);
            toast(done, 'success');
            if (answer.runId) location.hash = '#/runs/' + answer.runId;
            else reload();
        } catch (error) {
            toast(`${humanize(action)} failed: ${error.message}`, 'error');
        }
    };
    const button = (action, label, title, message, done, primary) => schedule.actions[action]
        ? h('button', {class: ['button', 'button-small', primary && 'button-primary'], text: label, dataset: {action}, on: {click: async () => {
            const ok = await confirmAction({title, message: [h('span', {text: message + ' '}), h('strong', {text: schedule.id})], confirmLabel: label});
            if (ok !== null) act(action, done);
        }}})
        : null;
    return h('div', {class: 'row-actions'},
        button('pause', 'Pause', 'Pause this schedule?', 'No occurrence fires until it is resumed:', 'Schedule paused'),
        button('resume', 'Resume', 'Resume this schedule?', 'Missed occurrences follow its catch-up policy:', 'Schedule resumed', true),
        button('trigger', 'Trigger now', 'Trigger a run now?', 'One run of the task and payload of', 'Run triggered'));
}
