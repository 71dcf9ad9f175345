// Small SVG charts built with DOM calls only: no markup is parsed and no style attribute is set, so they draw under
// the console's strict Content-Security-Policy (S-CO-7); colours come from classes in console.css. Labels and
// tooltips are text nodes (S-CO-3).

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 160;
const LEFT = 44;
const BOTTOM = 20;
const TOP = 8;

function el(tag, attrs = {}, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) {
        if (value !== null && value !== undefined) node.setAttribute(name, String(value));
    }
    for (const child of children) {
        if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
}

function tooltip(text) {
    return el('title', {}, text);
}

/** A round upper bound for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(value) {
    if (!(value > 0)) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
    return 10 * power;
}

function frame(svg, max, formatValue, labels) {
    const plotHeight = HEIGHT - BOTTOM - TOP;
    for (const fraction of [0, 0.5, 1]) {
        const y = TOP + plotHeight * (1 - fraction);
        svg.append(el('line', {x1: LEFT, x2: WIDTH, y1: y, y2: y, class: 'chart-grid'}));
        svg.append(el('text', {x: LEFT - 6, y: y + 4, class: 'chart-axis', 'text-anchor': 'end'}, formatValue(max * fraction)));
    }
    for (const [x, text] of labels) {
        svg.append(el('text', {x, y: HEIGHT - 4, class: 'chart-axis', 'text-anchor': 'middle'}, text));
    }
}

function axisLabels(points, slot, label) {
    const every = Math.max(1, Math.ceil(points.length / 6));
    return points
        .map((point, index) => [index, point])
        .filter(([index]) => index % every === 0)
        .map(([index, point]) => [LEFT + slot * index + slot / 2, label(point)]);
}

/**
 * Bars, one per point, stacked from `series` ({key, className, label}); each bar's title says its interval and its
 * values. Returns an `<svg>` with class `chart-svg` and one `g.chart-bar` per point.
 */
export function barChart(points, series, {label, describe, id}) {
    const svg = el('svg', {viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart-svg', role: 'img', id});
    const max = niceMax(Math.max(0, ...points.map(point => series.reduce((sum, s) => sum + (point[s.key] ?? 0), 0))));
    const slot = (WIDTH - LEFT) / Math.max(1, points.length);
    const plotHeight = HEIGHT - BOTTOM - TOP;
    frame(svg, max, value => (Number.isInteger(value) ? String(value) : ''), axisLabels(points, slot, label));
    points.forEach((point, index) => {
        const group = el('g', {class: 'chart-bar'}, tooltip(describe(point)));
        let base = TOP + plotHeight;
        for (const s of series) {
            const value = point[s.key] ?? 0;
            if (value <= 0) continue;
            const height = plotHeight * value / max;
            base -= height;
            group.append(el('rect', {
                x: (LEFT + slot * index + slot * 0.12).toFixed(2), y: base.toFixed(2),
                width: Math.max(1, slot * 0.76).toFixed(2), height: height.toFixed(2), class: s.className
            }));
        }
        group.append(el('rect', {x: (LEFT + slot * index).toFixed(2), y: TOP, width: slot.toFixed(2), height: plotHeight, class: 'chart-hit'}));
        svg.append(group);
    });
    return svg;
}

/**
 * Lines through the points of each of `series` ({key, className}), with a dot per known value; points without a
 * value (no run finished in the interval) break the line.
 */
export function lineChart(points, series, {label, describe, formatValue, id}) {
    const svg = el('svg', {viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart-svg', role: 'img', id});
    const max = niceMax(Math.max(0, ...points.flatMap(point => series.map(s => point[s.key] ?? 0))));
    const slot = (WIDTH - LEFT) / Math.max(1, points.length);
    const plotHeight = HEIGHT - BOTTOM - TOP;
    frame(svg, max, formatValue, axisLabels(points, slot, label));
    const x = index => LEFT + slot * index + slot / 2;
    const y = value => TOP + plotHeight * (1 - value / max);
    for (const s of series) {
        let run = [];
        const flush = () => {
            if (run.length > 1) svg.append(el('polyline', {points: run.join(' '), class: ['chart-line', s.className].join(' ')}));
            run = [];
        };
        points.forEach((point, index) => {
            const value = point[s.key];
            if (value === null || value === undefined) {
                flush();
                return;
            }
            run.push(`${x(index).toFixed(2)},${y(value).toFixed(2)}`);
            svg.append(el('circle', {cx: x(index).toFixed(2), cy: y(value).toFixed(2), r: 2.5, class: ['chart-dot', s.className].join(' ')},
                tooltip(describe(point))));
        });
        flush();
    }
    return svg;
}
