// Times and durations for people.

const absolute = new Intl.DateTimeFormat(undefined, {
    year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit'
});
const clock = new Intl.DateTimeFormat(undefined, {hour: '2-digit', minute: '2-digit'});
const precise = new Intl.DateTimeFormat(undefined, {
    hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3
});

export function formatAbsolute(instant) {
    return instant ? absolute.format(new Date(instant)) : '—';
}

export function formatClock(instant) {
    return clock.format(new Date(instant));
}

export function formatPrecise(instant) {
    return instant ? precise.format(new Date(instant)) : '—';
}

/** "12 s ago", "in 3 min", "2 h ago" … */
export function formatRelative(instant, now = Date.now()) {
    if (!instant) return '—';
    const millis = new Date(instant).getTime() - now;
    if (Math.abs(millis) < 1000) return 'just now';
    const text = formatAge(Math.abs(millis));
    return millis < 0 ? `${text} ago` : `in ${text}`;
}

/** A coarse age: 12 s, 54 min, 3 h 5 min, 2 d 4 h. */
export function formatAge(millis) {
    const seconds = Math.floor(millis / 1000);
    if (seconds < 60) return `${seconds} s`;
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return `${minutes} min`;
    const hours = Math.floor(minutes / 60);
    if (hours < 24) return `${hours} h ${minutes % 60} min`;
    return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** 850 ms, 4.2 s, 3 min 12 s, 2 h 5 min, 3 d 4 h */
export function formatDuration(millis) {
    if (millis === null || millis === undefined || Number.isNaN(millis)) return '—';
    if (millis < 1000) return `${Math.round(millis)} ms`;
    const seconds = millis / 1000;
    if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
    const hours = Math.floor(minutes / 60);
    if (hours < 24) return `${hours} h ${minutes % 60} min`;
    return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

export function between(start, end) {
    if (!start) return null;
    return new Date(end ?? Date.now()).getTime() - new Date(start).getTime();
}

/** The end of a run id: ids are UUIDv7, whose first digits are the creation time and alike for close runs. */
export function shortId(id) {
    return '…' + String(id ?? '').slice(-8);
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
