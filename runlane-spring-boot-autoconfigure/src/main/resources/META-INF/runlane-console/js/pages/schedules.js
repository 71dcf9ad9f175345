// Schedules: next and last fire, paused, skips; an explanation while Runlane has no schedule API.
import {h, replace} from '../dom.js';
import {get} from '../api.js';
import {markUpdated} from '../app.js';
import {formatAbsolute, formatRelative} from '../format.js';

export async function schedulesPage(container) {
    const body = h('div', {class: 'card', id: 'schedules'}, h('div', {class: 'loading', text: 'Loading…'}));
    container.append(
        h('div', {class: 'page-header'},
            h('div', {}, h('h1', {text: 'Schedules'}), h('p', {class: 'subtitle', text: 'Recurring triggers of this environment.'}))),
        body);
    try {
        const answer = await get('schedules');
        markUpdated();
        if (!answer.available || answer.schedules.length === 0) {
            replace(body, h('div', {class: 'empty', id: 'no-schedules'},
                h('div', {class: 'empty-icon', attrs: {'aria-hidden': 'true'}}),
                h('h2', {text: 'No schedules'}),
                h('p', {class: 'muted', text: answer.available ? 'No schedule is declared.' : answer.note}),
                answer.available ? null : h('p', {class: 'note', text: 'Trigger runs from your application with RunlaneTemplate.trigger(…) meanwhile; they appear under Runs.'})));
            return;
        }
        replace(body, h('div', {class: 'table-wrap'}, h('table', {class: 'table'},
            h('thead', {}, h('tr', {}, ['Schedule', 'Task', 'Expression', 'Next fire', 'Last fire', 'State', 'Skipped'].map(text => h('th', {text})))),
            h('tbody', {}, answer.schedules.map(schedule => h('tr', {},
                h('td', {class: 'strong', text: schedule.id}),
                h('td', {text: schedule.taskId}),
                h('td', {class: 'mono', text: `${schedule.expression} (${schedule.zone})`}),
                h('td', {title: formatAbsolute(schedule.nextFireAt), text: formatRelative(schedule.nextFireAt)}),
                h('td', {}, schedule.lastRunId ? h('a', {href: '#/runs/' + schedule.lastRunId, text: formatRelative(schedule.lastFireAt)}) : formatRelative(schedule.lastFireAt)),
                h('td', {}, h('span', {class: ['badge', schedule.paused ? 'status-released' : 'status-running'], text: schedule.paused ? 'Paused' : 'Active'})),
                h('td', {class: 'num', text: schedule.skippedCount})))))));
    } catch (error) {
        replace(body, h('div', {class: 'alert alert-error', text: error.message}));
    }
}
