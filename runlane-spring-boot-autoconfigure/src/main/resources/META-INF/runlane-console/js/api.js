// The console's JSON API, relative to the page (served at <path>/), so the console works under any path.

export class ApiError extends Error {
    constructor(status, code, message) {
        super(message);
        this.status = status;
        this.code = code;
    }
}

export async function get(path, params) {
    const query = params ? '?' + new URLSearchParams(params).toString() : '';
    return handle(await fetch('api/' + path + query, {
        headers: {Accept: 'application/json'},
        credentials: 'same-origin'
    }));
}

/**
 * Posts an action. The X-Runlane-Console header and the JSON body are what the API requires of a write; a cross-site
 * form can send neither. Behind Spring Security the CSRF token goes along: from the XSRF-TOKEN cookie when the
 * application uses a cookie token repository (csrf.spa()), otherwise from the page's meta tags.
 */
export async function post(path, body = {}) {
    return handle(await fetch('api/' + path, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
            Accept: 'application/json',
            'Content-Type': 'application/json',
            'X-Runlane-Console': '1',
            ...csrfHeaders()
        },
        body: JSON.stringify(body)
    }));
}

function csrfHeaders() {
    const cookie = document.cookie.split(';').map(part => part.trim()).find(part => part.startsWith('XSRF-TOKEN='));
    if (cookie) return {'X-XSRF-TOKEN': decodeURIComponent(cookie.substring('XSRF-TOKEN='.length))};
    const header = document.querySelector('meta[name="runlane-csrf-header"]')?.content;
    const token = document.querySelector('meta[name="runlane-csrf-token"]')?.content;
    return header && token ? {[header]: token} : {};
}

async function handle(response) {
    const type = response.headers.get('Content-Type') ?? '';
    const body = type.includes('json') ? await response.json().catch(() => null) : null;
    if (!response.ok) {
        const message = body?.message ?? describe(response.status);
        throw new ApiError(response.status, body?.code ?? String(response.status), message);
    }
    if (body === null) throw new ApiError(response.status, 'not_json', 'The server did not answer with JSON; is the session still signed in?');
    return body;
}

function describe(status) {
    switch (status) {
        case 401: return 'Not signed in: reload the page to sign in again.';
        case 403: return 'Refused: this console is read-only or the request lacks its security token.';
        case 404: return 'Not found.';
        default: return `The server answered ${status}.`;
    }
}
