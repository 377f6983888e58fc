// Tokens per model per day as stacked bars, drawn as SVG by hand: no chart library, nothing
// fetched. Colours come from the stylesheet (`.series-N`), so the page's CSP needs no inline style.
import { formatTokens, niceScale, type UsageSeries } from './usage-series.js';

const svgNamespace = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>, ...children: (SVGElement | string)[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** How many colours the stylesheet defines; further models reuse them. */
export const seriesColours = 8;

const margin = { top: 16, right: 12, bottom: 34, left: 52 };

/**
 * The chart: one stacked bar per day (the largest model at the bottom), a y axis in tokens
 * with round steps, day labels under the bars (thinned out for long ranges), and a tooltip
 * (`<title>`) on every segment.
 *
 * @example
 * container.replaceChildren(renderUsageChart(buildUsageSeries(rows, since, until)));
 */
export function renderUsageChart(series: UsageSeries, size: { width: number } = { width: 960 }): SVGSVGElement {
  // Drawn at the size it is shown, so that its text stays readable on a phone.
  const width = Math.max(300, Math.round(size.width));
  const height = width < 600 ? 240 : 320;
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const { max, ticks } = niceScale(Math.max(0, ...series.dayTotals));
  const y = (value: number) => margin.top + plotHeight - (value / max) * plotHeight;
  const slot = plotWidth / Math.max(1, series.days.length);
  const barWidth = Math.max(2, slot * 0.72);
  const labelEvery = Math.ceil(series.days.length / Math.max(2, Math.floor(plotWidth / 64)));

  const grid = ticks.map((tick) =>
    svg(
      'g',
      { class: 'tick' },
      svg('line', { x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick), class: tick === 0 ? 'axis-line' : 'grid-line' }),
      svg('text', { x: margin.left - 8, y: y(tick) + 4, 'text-anchor': 'end', class: 'axis-label' }, formatTokens(tick)),
    ),
  );
  const bars = series.days.map((day, dayIndex) => {
    const x = margin.left + slot * dayIndex + (slot - barWidth) / 2;
    let base = 0;
    const segments = series.models.flatMap((model, modelIndex) => {
      const value = series.tokens[modelIndex]![dayIndex]!;
      if (value === 0) return [];
      const top = base + value;
      const segment = svg(
        'rect',
        { x: x.toFixed(1), y: y(top).toFixed(1), width: barWidth.toFixed(1), height: Math.max(0.5, y(base) - y(top)).toFixed(1), class: `bar series-${modelIndex % seriesColours}`, 'data-model': model, 'data-day': day, 'data-tokens': value },
        svg('title', {}, `${day} · ${model}: ${value.toLocaleString('en-US')} tokens`),
      );
      base = top;
      return [segment];
    });
    const label = dayIndex % labelEvery === 0 ? [svg('text', { x: (x + barWidth / 2).toFixed(1), y: height - margin.bottom + 18, 'text-anchor': 'middle', class: 'axis-label' }, day.slice(5))] : [];
    return svg('g', { class: 'day', 'data-day': day }, ...segments, ...label);
  });
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, class: 'usage-chart', role: 'img', 'aria-label': `Tokens per model per day, ${series.days[0] ?? ''} to ${series.days.at(-1) ?? ''}` },
    ...grid,
    ...bars,
  );
}
