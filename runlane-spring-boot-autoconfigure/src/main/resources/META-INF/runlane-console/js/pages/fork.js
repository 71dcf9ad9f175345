// Forking a finished run (S-RV-3, S-RV-5): from one of its recorded steps, or after all of them. Each is confirmed,
// posts to api/runs/{id}/fork and opens the new run; a refusal (an unknown step, a run active again) is shown as a
// message. Step names are shown as text (S-CO-3).
import {h} from '../dom.js';
import {post} from '../api.js';
import {toast} from '../app.js';
import {confirmAction} from '../dialog.js';

/** A button that forks `run` from the step named `fromStep`, or after every recorded step when it is null. */
export function forkButton(run, fromStep, {id, label, small = false}) {
    return h('button', {class: ['button', small ? 'button-small' : null, fromStep === null ? 'fork-all' : 'fork-step'], id, text: label,
        on: {click: async event => {
            event.stopPropagation();
            const ok = await confirmAction({
                title: fromStep === null ? 'Fork after all recorded steps?' : 'Fork from this step?',
                message: message(run, fromStep),
                confirmLabel: 'Fork'
            });
            if (ok === null) return;
            try {
                const answer = await post(`runs/${encodeURIComponent(run.id)}/fork`, {fromStep});
                toast('Fork created', 'success');
                location.hash = '#/runs/' + answer.run.id;
            } catch (error) {
                toast(`Fork failed: ${error.message}`, 'error');
            }
        }}});
}

function message(run, fromStep) {
    const task = h('strong', {text: run.taskId});
    if (fromStep === null) {
        return [h('span', {text: 'A new run of '}), task, h('span', {text: ' replays every step this run recorded, with their recorded results, and runs the rest of the handler anew with new step ids. This run is left as it is.'})];
    }
    return [h('span', {text: 'A new run of '}), task, h('span', {text: ' replays the steps this run recorded before the first '}),
        h('code', {class: 'mono', id: 'fork-step-name', text: fromStep}),
        h('span', {text: ', with their recorded results. That step and every step after it run again with new step ids, so an external API called with a step id sees a new key. This run is left as it is.'})];
}
