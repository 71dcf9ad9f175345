// A confirmation dialog for the operator actions (S-CO-2). Resolves with the entered reason (or '') on confirm and
// with null on cancel.
import {h} from './dom.js';

export function confirmAction({title, message, confirmLabel, danger = false, reason = false}) {
    return new Promise(resolve => {
        const input = reason
            ? h('textarea', {class: 'input', id: 'confirm-reason', rows: 2, placeholder: 'Reason (recorded in the run\'s history)'})
            : null;
        const dialog = h('dialog', {class: 'dialog', id: 'confirm-dialog'});
        const close = value => {
            dialog.close();
            dialog.remove();
            resolve(value);
        };
        dialog.append(
            h('form', {class: 'dialog-body', attrs: {method: 'dialog'}, on: {submit: event => {
                event.preventDefault();
                close(input ? input.value.trim() : '');
            }}},
                h('h2', {class: 'dialog-title', text: title}),
                h('div', {class: 'dialog-message'}, message),
                input,
                h('div', {class: 'dialog-actions'},
                    h('button', {type: 'button', class: 'button', text: 'Keep it', id: 'confirm-no', on: {click: () => close(null)}}),
                    h('button', {type: 'submit', class: ['button', danger ? 'button-danger' : 'button-primary'], text: confirmLabel, id: 'confirm-yes'}))));
        dialog.addEventListener('cancel', event => {
            event.preventDefault();
            close(null);
        });
        document.body.append(dialog);
        dialog.showModal();
        (input ?? dialog.querySelector('#confirm-no')).focus();
    });
}
