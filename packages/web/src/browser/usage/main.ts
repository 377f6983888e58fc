// The usage view: an operator's first look at their service. Tokens per model per day from
// the admin API of this server (GET /admin/v1/usage), with the admin token the operator types
// in (kept in this tab only).
import { byId, h } from '../dom.js';
import { describeAdminError } from './describe-admin-error.js';
import { renderUsageChart, seriesColours } from './usage-chart.js';
import { buildUsageSeries, formatTokens, type UsageRow, type UsageSeries } from './usage-series.js';

const tokenStorage = 'quantum-chat.usage.admin-token';

/** The series on screen, redrawn at the new width when the window is resized. */
let shown: UsageSeries | undefined;

const form = byId<HTMLFormElement>('usage-form');
const token = byId<HTMLInputElement>('admin-token');
const organisation = byId<HTMLSelectElement>('organisation');
const range = byId<HTMLSelectElement>('days');
const status = byId('usage-status');
const card = byId('usage-card');
const chart = byId('usage-chart');
const legend = byId('usage-legend');
const table = byId('usage-table');

/** The admin API's base URL, as the server wrote it into the page. */
const adminBase = new URL(document.querySelector<HTMLMetaElement>('meta[name="quantum-chat-admin-api"]')?.content || '/admin/v1', window.location.href).href.replace(/\/+$/u, '');

interface UsageReport {
  since: string;
  until: string;
  data: UsageRow[];
}

class AdminRequestError extends Error {}

async function adminGet<T>(path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${adminBase}${path}`, { headers: { authorization: `Bearer ${token.value.trim()}`, accept: 'application/json' } });
  } catch (error) {
    throw new AdminRequestError(describeAdminError(undefined, undefined, error));
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw new AdminRequestError(describeAdminError(response.status, body));
  return body as T;
}

const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

function showStatus(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind === 'error' ? 'usage-status error' : 'usage-status';
  status.hidden = text === '';
}

function renderLegend(series: UsageSeries): HTMLElement[] {
  return series.totals.map((totals, index) =>
    h('li', {}, h('span', { class: `swatch series-${index % seriesColours}`, 'aria-hidden': 'true' }), h('code', {}, totals.model), ' ', h('span', { class: 'legend-total' }, `${formatTokens(totals.totalTokens)} tokens`)),
  );
}

function renderTable(series: UsageSeries): HTMLElement {
  const number = (value: number) => h('td', { class: 'number' }, value.toLocaleString('en-US'));
  const sum = (field: 'requests' | 'promptTokens' | 'completionTokens' | 'totalTokens') => series.totals.reduce((total, totals) => total + totals[field], 0);
  return h(
    'table',
    { class: 'properties usage-totals' },
    h('thead', {}, h('tr', {}, ['Model', 'Requests', 'Prompt tokens', 'Completion tokens', 'Total tokens'].map((heading, index) => h('th', index > 0 ? { class: 'number' } : {}, heading)))),
    h(
      'tbody',
      {},
      series.totals.map((totals) => h('tr', {}, h('td', {}, h('code', {}, totals.model)), number(totals.requests), number(totals.promptTokens), number(totals.completionTokens), number(totals.totalTokens))),
      h('tr', { class: 'total-row' }, h('td', {}, 'All models'), number(sum('requests')), number(sum('promptTokens')), number(sum('completionTokens')), number(sum('totalTokens'))),
    ),
  );
}

/** Fills the organisation picker once the token works (keeps the choice). */
async function loadOrganisations(): Promise<void> {
  const { data } = await adminGet<{ data: { name: string; plan: string }[] }>('/organisations');
  const chosen = organisation.value;
  organisation.replaceChildren(h('option', { value: '' }, 'All organisations'), ...data.map((entry) => h('option', { value: entry.name }, `${entry.name} (${entry.plan})`)));
  organisation.value = data.some((entry) => entry.name === chosen) ? chosen : '';
}

async function load(): Promise<void> {
  if (token.value.trim() === '') {
    showStatus('Enter an admin token: the server\'s QUANTUM_CHAT_ADMIN_TOKEN (or adminToken in its config).');
    return;
  }
  showStatus('Loading…');
  try {
    await loadOrganisations();
    const until = utcDay(Date.now());
    const since = utcDay(Date.now() - (Number(range.value) - 1) * 86_400_000);
    const query = new URLSearchParams({ since, until, ...(organisation.value !== '' ? { organisation: organisation.value } : {}) });
    const report = await adminGet<UsageReport>(`/usage?${query}`);
    const series = buildUsageSeries(report.data, report.since, report.until);
    shown = series;
    // Shown first: the chart is drawn at the width it gets.
    card.hidden = false;
    chart.replaceChildren(renderUsageChart(series, { width: chart.clientWidth }));
    legend.replaceChildren(...renderLegend(series));
    table.replaceChildren(renderTable(series));
    const scope = organisation.value === '' ? 'all organisations' : `'${organisation.value}'`;
    showStatus(series.models.length === 0 ? `No requests from ${report.since} to ${report.until} (${scope}).` : `Tokens per model per day, ${report.since} to ${report.until} (UTC), ${scope}.`);
  } catch (error) {
    shown = undefined;
    card.hidden = true;
    chart.replaceChildren();
    legend.replaceChildren();
    table.replaceChildren();
    showStatus(error instanceof AdminRequestError ? error.message : String(error), 'error');
  }
}

token.value = sessionStorage.getItem(tokenStorage) ?? '';
token.addEventListener('input', () => sessionStorage.setItem(tokenStorage, token.value));
form.addEventListener('submit', (event) => {
  event.preventDefault();
  void load();
});
organisation.addEventListener('change', () => void load());
range.addEventListener('change', () => void load());
let resizing: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    if (shown !== undefined && chart.firstChild !== null) chart.replaceChildren(renderUsageChart(shown, { width: chart.clientWidth }));
  }, 150);
});
if (token.value !== '') void load();
