// The stack trace stored with a run's failure (S-EX-35), as a collapsible block of the failure box. The API answers
// the text, "******" when the user does not see values (S-CO-13), or null when the failure has none (no exception,
// or stored before stack traces were). Text nodes only, like every other value (S-CO-3).
import {h} from './dom.js';

const MASK = '******';

export function failureStackBlock(stack) {
    if (stack === null || stack === undefined) return null;
    if (stack === MASK) {
        return h('p', {class: 'failure-stack-hidden', id: 'failure-stack-hidden',
            text: 'Stack trace hidden: values are not shown to you (runlane.console.show-values).'});
    }
    const lines = stack.split('\n').length;
    return h('details', {class: 'failure-stack', id: 'failure-stack', dataset: {key: 'failure-stack'}},
        h('summary', {text: `Stack trace · ${lines} line${lines === 1 ? '' : 's'}`}),
        h('pre', {class: 'failure-stack-text', id: 'failure-stack-text', text: stack}));
}
