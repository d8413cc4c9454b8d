// The Grafana dashboards of deploy/monitoring, built with Grafana's foundation SDK (its typed builders
// produce the dashboard model Grafana loads). `node scripts/gen-monitoring.mjs` writes one JSON per
// dashboard beside this file; `node scripts/check-monitoring.mjs` fails when they differ from this source.
//
// Every query reads the data source of the `datasource` variable and the namespace of `namespace`; the
// per-service dashboards also filter on `pod` (all by default). Metric names: deploy/monitoring/metrics.txt.
import * as common from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardBuilder,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries';

export const SERVICES = ['gateway', 'keys', 'sessions', 'flow-runner', 'webhooks', 'dashboard'];
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const SERVICE_REGEX = SERVICES.join('|');
const RATE = '$__rate_interval';

/** One PromQL query of a panel: refIds A, B, C… are given when the panel is built. */
const query = (expr, legend) => ({ expr, legend });
/** A quantile of a histogram over the dashboard's rate window, one series per value of `by` (none when empty). */
const quantile = (q, metric, selector, by = '') =>
  query(
    `histogram_quantile(${q}, sum by (${by ? `${by}, ` : ''}le) (rate(${metric}_bucket{${selector}}[${RATE}])))`,
    by ? `{{${by}}}` : `p${Math.round(q * 100)}`,
  );

/** Time series panel. `thresholds` draws the alert thresholds as dashed lines. */
function timeseries(title, { unit = 'short', description, queries, thresholds, base, stack = false, min, max, span = 8 }) {
  return { kind: 'timeseries', title, unit, description, queries, thresholds, base, stack, min, max, span };
}

/** Single-value panel (last value), coloured by thresholds: the `base` colour, then [[from, colour], …]. */
function stat(title, { unit = 'short', description, queries, thresholds, base = 'green', span = 4 }) {
  return { kind: 'stat', title, unit, description, queries, thresholds, base, span };
}

function thresholdsOf(steps, base = 'green') {
  return new ThresholdsConfigBuilder()
    .mode(ThresholdsMode.Absolute)
    .steps([{ value: null, color: base }, ...steps.map(([value, color]) => ({ value, color }))]);
}

function buildPanel(spec, id) {
  const panel = spec.kind === 'stat' ? new StatPanel() : new TimeseriesPanel();
  panel.id(id).title(spec.title).datasource(DATASOURCE).unit(spec.unit).span(spec.span).height(8);
  if (spec.description) panel.description(spec.description);
  spec.queries.forEach(({ expr, legend }, index) => {
    const target = new DataqueryBuilder()
      .refId(String.fromCharCode(65 + index))
      .datasource(DATASOURCE)
      .expr(expr);
    target.legendFormat(legend ?? '__auto');
    if (spec.kind === 'stat') target.instant();
    panel.withTarget(target);
  });
  if (spec.kind === 'stat') {
    panel
      .colorMode(common.BigValueColorMode.Background)
      .graphMode(common.BigValueGraphMode.None)
      .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false));
    panel.thresholds(thresholdsOf(spec.thresholds ?? [], spec.base));
  } else {
    panel
      .legend(
        new common.VizLegendOptionsBuilder()
          .showLegend(true)
          .displayMode(common.LegendDisplayMode.List)
          .placement(common.LegendPlacement.Bottom),
      )
      .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending))
      .fillOpacity(spec.stack ? 30 : 10)
      .lineWidth(1);
    if (spec.stack) panel.stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal));
    if (spec.min !== undefined) panel.min(spec.min);
    if (spec.max !== undefined) panel.max(spec.max);
    if (spec.thresholds) {
      panel
        .thresholds(thresholdsOf(spec.thresholds, spec.base))
        .thresholdsStyle(new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.Dashed));
    }
  }
  return panel;
}

function variables({ withPod, service }) {
  const list = [
    new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'),
    new QueryVariableBuilder('namespace')
      .label('Namespace')
      .datasource(DATASOURCE)
      .query(`label_values(up{service=~"${SERVICE_REGEX}"}, namespace)`)
      .definition(`label_values(up{service=~"${SERVICE_REGEX}"}, namespace)`)
      .refresh(VariableRefresh.OnTimeRangeChanged)
      .sort(VariableSort.AlphabeticalAsc),
  ];
  if (withPod) {
    const pods = `label_values(up{namespace="$namespace", service="${service}"}, pod)`;
    list.push(
      new QueryVariableBuilder('pod')
        .label('Pod')
        .datasource(DATASOURCE)
        .query(pods)
        .definition(pods)
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    );
  }
  return list;
}

function dashboard({ uid, title, description, tags, rows, withPod = false, service }) {
  const builder = new DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(['idv', ...tags])
    .editable()
    .refresh('1m')
    .time({ from: 'now-6h', to: 'now' })
    .timezone('browser')
    .variables(variables({ withPod, service }));
  let id = 1;
  for (const row of rows) {
    builder.withRow(new RowBuilder(row.title).id(id++));
    for (const spec of row.panels) builder.withPanel(buildPanel(spec, id++));
  }
  return builder.build();
}

// ---- rows shared by the per-service dashboards ----

/** The label matchers of one service's series under the dashboard's namespace and pod variables. */
const seriesOf = (service) => `namespace="$namespace", service="${service}", pod=~"$pod"`;

function httpRow(service) {
  const s = seriesOf(service);
  return {
    title: 'HTTP',
    panels: [
      timeseries('Requests by route', {
        unit: 'reqps',
        queries: [query(`sum by (route) (rate(http_request_duration_seconds_count{${s}}[${RATE}]))`, '{{route}}')],
      }),
      timeseries('5xx share by route', {
        unit: 'percentunit',
        min: 0,
        queries: [
          query(
            `sum by (route) (rate(http_request_duration_seconds_count{${s}, status=~"5.."}[${RATE}]))` +
              ` / sum by (route) (rate(http_request_duration_seconds_count{${s}}[${RATE}]))`,
            '{{route}}',
          ),
        ],
      }),
      timeseries('p99 latency by route', {
        unit: 's',
        thresholds: service === 'gateway' ? [[1, 'red']] : undefined,
        queries: [quantile(0.99, 'http_request_duration_seconds', s, 'route')],
      }),
      timeseries('Responses by status', {
        unit: 'reqps',
        stack: true,
        queries: [query(`sum by (status) (rate(http_request_duration_seconds_count{${s}}[${RATE}]))`, '{{status}}')],
      }),
    ],
  };
}

function runtimeRow(service) {
  const s = seriesOf(service);
  return {
    title: 'Runtime',
    panels: [
      stat('Replicas up', {
        description: 'Targets of this service that answered their last scrape.',
        queries: [query(`sum(up{namespace="$namespace", service="${service}"})`, 'up')],
        thresholds: [],
        span: 6,
      }),
      timeseries('CPU', {
        unit: 'percentunit',
        span: 6,
        queries: [query(`rate(process_cpu_seconds_total{${s}}[${RATE}])`, '{{pod}}')],
      }),
      timeseries('Resident memory', {
        unit: 'bytes',
        span: 6,
        queries: [query(`process_resident_memory_bytes{${s}}`, '{{pod}}')],
      }),
      timeseries('Event loop lag p99', {
        unit: 's',
        span: 6,
        queries: [query(`nodejs_eventloop_lag_p99_seconds{${s}}`, '{{pod}}')],
      }),
      timeseries('Heap used', { unit: 'bytes', span: 12, queries: [query(`nodejs_heap_size_used_bytes{${s}}`, '{{pod}}')] }),
      timeseries('Open file descriptors', { span: 12, queries: [query(`process_open_fds{${s}}`, '{{pod}}')] }),
    ],
  };
}

function databaseRow(service) {
  const s = seriesOf(service);
  return {
    title: 'PostgreSQL pool',
    panels: [
      timeseries('Connections by state', {
        stack: true,
        queries: [
          query(`sum by (state) (db_pool_connections{${s}})`, '{{state}}'),
          query(`sum(db_pool_max_connections{${s}})`, 'max'),
        ],
      }),
      timeseries('Requests waiting for a connection', {
        description: 'DbPoolSaturated: a 5-minute average of 1 or more, held 10 minutes.',
        thresholds: [[1, 'red']],
        queries: [query(`db_pool_waiting_requests{${s}}`, '{{pod}}')],
      }),
      timeseries('Pool use', {
        unit: 'percentunit',
        min: 0,
        max: 1,
        queries: [
          query(
            `sum by (pod) (db_pool_connections{${s}, state="in_use"}) / sum by (pod) (db_pool_max_connections{${s}})`,
            '{{pod}}',
          ),
        ],
      }),
    ],
  };
}

function messagingRow(service, { outbox }) {
  const s = seriesOf(service);
  const panels = [];
  if (outbox) {
    panels.push(
      timeseries('Outbox: unpublished rows', { queries: [query(`max(outbox_pending_messages{${s}})`, 'pending')] }),
      timeseries('Outbox: oldest unpublished row', {
        unit: 's',
        description: 'OutboxBacklog pages above 120 s held 5 minutes.',
        thresholds: [[120, 'red']],
        queries: [query(`max(outbox_oldest_pending_age_seconds{${s}})`, 'oldest')],
      }),
    );
  }
  panels.push(
    timeseries('Queue: ready messages', {
      description: 'Broker counts, read at scrape (every replica reports the same queue). Dead-letter queues end in .dead.',
      queries: [query(`max by (queue) (amqp_queue_messages_ready{${s}})`, '{{queue}}')],
    }),
    timeseries('Queue: consumers', { queries: [query(`max by (queue) (amqp_queue_consumers{${s}})`, '{{queue}}')] }),
    timeseries('Messages consumed by outcome', {
      unit: 'ops',
      stack: true,
      queries: [query(`sum by (queue, outcome) (rate(amqp_messages_consumed_total{${s}}[${RATE}]))`, '{{queue}} {{outcome}}')],
    }),
    timeseries('Unacked, redelivered, dead-lettered', {
      queries: [
        query(`sum by (queue) (amqp_messages_unacked{${s}})`, 'unacked {{queue}}'),
        query(`sum by (queue) (rate(amqp_messages_redelivered_total{${s}}[${RATE}]))`, 'redelivered/s {{queue}}'),
        query(`sum by (queue) (increase(amqp_messages_dead_lettered_total{${s}}[${RATE}]))`, 'dead-lettered {{queue}}'),
      ],
    }),
  );
  return { title: outbox ? 'Outbox and broker' : 'Broker', panels };
}

function jobsRow(service) {
  const s = seriesOf(service);
  return {
    title: 'Background jobs',
    panels: [
      timeseries('Items by job and outcome', {
        unit: 'ops',
        queries: [query(`sum by (job, outcome) (rate(job_items_total{${s}}[${RATE}]))`, '{{job}} {{outcome}}')],
      }),
      timeseries('Errors by job', {
        unit: 'ops',
        queries: [query(`sum by (job) (rate(job_errors_total{${s}}[${RATE}]))`, '{{job}}')],
      }),
      timeseries('Lag p95 (due to claim)', {
        unit: 's',
        thresholds: [[60, 'orange']],
        queries: [quantile(0.95, 'job_lag_seconds', s, 'job')],
      }),
      timeseries('Waiting items', { queries: [query(`max by (job) (job_queue_depth{${s}})`, '{{job}}')] }),
      timeseries('Oldest waiting item', {
        unit: 's',
        queries: [query(`max by (job) (job_oldest_item_age_seconds{${s}})`, '{{job}}')],
      }),
      timeseries('In flight', { queries: [query(`sum by (job) (job_in_flight{${s}})`, '{{job}}')] }),
    ],
  };
}

function serviceDashboard(service, title, description, specificRows, { outbox = false, broker = true, jobs = false } = {}) {
  const rows = [...specificRows, httpRow(service)];
  if (outbox || broker) rows.push(messagingRow(service, { outbox }));
  if (jobs) rows.push(jobsRow(service));
  rows.push(databaseRow(service), runtimeRow(service));
  return dashboard({ uid: `idv-${service}`, title, description, tags: [service], rows, withPod: true, service });
}

// ---- per-service rows ----

function gatewayRows() {
  return [
    {
      title: 'API objectives (public /v1 routes)',
      panels: [
        stat('Availability, 1 h', {
          unit: 'percentunit',
          description: 'Share of /v1 requests answered without a 5xx. Objective 99.9 % per route over 30 days.',
          base: 'red',
          thresholds: [
            [0.99, 'orange'],
            [0.999, 'green'],
          ],
          queries: [
            query(
              'sum(namespace_route:http_requests:rate1h{namespace="$namespace"} - namespace_route:http_request_errors:rate1h{namespace="$namespace"})' +
                ' / sum(namespace_route:http_requests:rate1h{namespace="$namespace"})',
              'availability',
            ),
          ],
        }),
        stat('Availability, 3 d', {
          unit: 'percentunit',
          base: 'red',
          thresholds: [
            [0.99, 'orange'],
            [0.999, 'green'],
          ],
          queries: [
            query(
              'sum(namespace_route:http_requests:rate3d{namespace="$namespace"} - namespace_route:http_request_errors:rate3d{namespace="$namespace"})' +
                ' / sum(namespace_route:http_requests:rate3d{namespace="$namespace"})',
              'availability',
            ),
          ],
        }),
        timeseries('Error budget burn rate by route (1 h)', {
          description: '5xx ratio over 1 h divided by the 0.1 % budget. ApiErrorBudgetFastBurn pages at 14.4 (with 5 m).',
          thresholds: [
            [6, 'orange'],
            [14.4, 'red'],
          ],
          span: 16,
          queries: [query('namespace_route:http_request_errors:ratio_rate1h{namespace="$namespace"} / 0.001', '{{route}}')],
        }),
        timeseries('p99 by route (5 m)', {
          unit: 's',
          thresholds: [[1, 'red']],
          span: 12,
          queries: [query('namespace_route:http_request_duration_seconds:p99_rate5m{namespace="$namespace"}', '{{route}}')],
        }),
        timeseries('5xx ratio by route (5 m)', {
          unit: 'percentunit',
          span: 12,
          queries: [query('namespace_route:http_request_errors:ratio_rate5m{namespace="$namespace"}', '{{route}}')],
        }),
      ],
    },
    {
      title: 'Throttling',
      panels: [
        timeseries('Throttled requests', {
          unit: 'reqps',
          queries: [
            query(
              `sum by (kind) (rate(throttled_requests_total{namespace="$namespace", service="gateway", pod=~"$pod"}[${RATE}]))`,
              '{{kind}}',
            ),
          ],
        }),
        timeseries('429 answers by route', {
          unit: 'reqps',
          queries: [
            query(
              `sum by (route) (rate(http_request_duration_seconds_count{namespace="$namespace", service="gateway", pod=~"$pod", status="429"}[${RATE}]))`,
              '{{route}}',
            ),
          ],
        }),
        timeseries('Rate limiter failures (Redis)', {
          unit: 'ops',
          queries: [
            query(
              `sum(rate(gateway_rate_limiter_failures_total{namespace="$namespace", service="gateway", pod=~"$pod"}[${RATE}]))`,
              'failures',
            ),
          ],
        }),
      ],
    },
  ];
}

function sessionsRows() {
  const s = seriesOf('sessions');
  return [
    {
      title: 'Sessions',
      panels: [
        timeseries('Sessions created by mode', {
          unit: 'ops',
          queries: [query(`sum by (mode) (rate(sessions_created_total{${s}}[${RATE}]))`, '{{mode}}')],
        }),
        timeseries('Transitions by target state', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (to) (rate(session_transitions_total{${s}}[${RATE}]))`, '{{to}}')],
        }),
        timeseries('Timers fired and idempotent replays', {
          unit: 'ops',
          queries: [
            query(`sum by (kind) (rate(session_timers_fired_total{${s}}[${RATE}]))`, 'timer {{kind}}'),
            query(`sum(rate(sessions_idempotent_replays_total{${s}}[${RATE}]))`, 'idempotent replays'),
          ],
        }),
        stat('Token ledger anomalies', {
          description: 'Accounts whose balance disagrees with their ledger or is negative. TokenLedgerAnomaly above 0.',
          thresholds: [[1, 'red']],
          queries: [query(`max(token_ledger_anomalies{namespace="$namespace", service="sessions"})`, 'anomalies')],
        }),
      ],
    },
  ];
}

function flowRunnerRows() {
  const s = seriesOf('flow-runner');
  return [
    {
      title: 'Verification work (documents and faces)',
      panels: [
        timeseries('Oldest queued job by kind', {
          unit: 's',
          description: 'VerificationQueueStalled pages above 60 s held 5 minutes.',
          thresholds: [[60, 'red']],
          queries: [query(`max by (kind) (verification_jobs_oldest_queued_age_seconds{${s}})`, '{{kind}}')],
        }),
        timeseries('Queued and running by kind', {
          queries: [
            query(`sum by (kind) (verification_jobs_queued{${s}})`, 'queued {{kind}}'),
            query(`sum by (kind) (verification_jobs_running{${s}})`, 'running {{kind}}'),
          ],
        }),
        timeseries('Job duration p50 / p95 by kind', {
          unit: 's',
          thresholds: [[5, 'orange']],
          queries: [
            { ...quantile(0.5, 'verification_job_duration_seconds', s, 'kind'), legend: 'p50 {{kind}}' },
            { ...quantile(0.95, 'verification_job_duration_seconds', s, 'kind'), legend: 'p95 {{kind}}' },
          ],
        }),
        timeseries('Jobs by kind and outcome', {
          unit: 'ops',
          queries: [
            query(
              `sum by (kind, outcome) (rate(verification_job_duration_seconds_count{${s}}[${RATE}]))`,
              '{{kind}} {{outcome}}',
            ),
          ],
        }),
        timeseries('Document sides read by outcome', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (outcome) (rate(flow_document_sides_read_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
        timeseries('Face attempts judged by outcome', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (outcome) (rate(flow_face_attempts_judged_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
      ],
    },
    {
      title: "The person's flow",
      panels: [
        timeseries('Step submission p99', {
          unit: 's',
          queries: [quantile(0.99, 'flow_step_submission_seconds', s, 'result')],
        }),
        timeseries('Sessions resolved by outcome', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (outcome) (rate(flow_sessions_resolved_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
        timeseries('Uploads refused and bytes held', {
          queries: [
            query(`sum by (status) (rate(flow_uploads_refused_total{${s}}[${RATE}]))`, 'refused/s {{status}}'),
            query(`sum(flow_upload_bytes_held{${s}})`, 'bytes held'),
          ],
        }),
        timeseries('Codes sent by channel and result', {
          unit: 'ops',
          queries: [query(`sum by (channel, result) (rate(flow_codes_sent_total{${s}}[${RATE}]))`, '{{channel}} {{result}}')],
        }),
        timeseries('Hand-overs and throttles', {
          unit: 'ops',
          queries: [
            query(`sum by (outcome) (rate(flow_handovers_total{${s}}[${RATE}]))`, 'hand-over {{outcome}}'),
            query(`sum by (kind) (rate(throttled_requests_total{${s}}[${RATE}]))`, 'throttled {{kind}}'),
          ],
        }),
        timeseries('Evidence downloads by outcome', {
          unit: 'ops',
          queries: [query(`sum by (outcome) (rate(evidence_downloads_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
      ],
    },
    {
      title: 'National registry',
      panels: [
        timeseries('Oldest pending check', {
          unit: 's',
          description: 'RegistryChecksPendingLong above 15 minutes.',
          thresholds: [[900, 'orange']],
          queries: [
            query(`max(registry_checks_oldest_pending_age_seconds{namespace="$namespace", service="flow-runner"})`, 'oldest'),
          ],
        }),
        timeseries('Pending checks', {
          queries: [query(`max(registry_checks_pending{namespace="$namespace", service="flow-runner"})`, 'pending')],
        }),
        timeseries('Registry calls by outcome', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (outcome) (rate(flow_registry_calls_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
        timeseries('Registry call p95', {
          unit: 's',
          queries: [quantile(0.95, 'flow_registry_call_duration_seconds', s)],
        }),
        timeseries('Checks decided by outcome', {
          unit: 'ops',
          queries: [query(`sum by (outcome) (rate(flow_registry_checks_decided_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
      ],
    },
  ];
}

function webhooksRows() {
  const s = seriesOf('webhooks');
  return [
    {
      title: 'Delivery',
      panels: [
        timeseries('Attempt success ratio', {
          unit: 'percentunit',
          description:
            'Attempts sent (circuit-open skips and test deliveries left out). WebhookDeliveriesFailing pages under 50 % (15 m); WebhookDeliverySuccessLow under 90 % (1 h).',
          base: 'red',
          thresholds: [
            [0.5, 'orange'],
            [0.9, 'green'],
          ],
          min: 0,
          max: 1,
          queries: [
            query('namespace:webhook_delivery_success:ratio_rate15m{namespace="$namespace"}', '15 m'),
            query('namespace:webhook_delivery_success:ratio_rate1h{namespace="$namespace"}', '1 h'),
          ],
        }),
        timeseries('Attempts by outcome', {
          unit: 'ops',
          stack: true,
          queries: [query(`sum by (outcome) (rate(webhook_deliveries_total{${s}}[${RATE}]))`, '{{outcome}}')],
        }),
        timeseries('Failed attempts by error', {
          unit: 'ops',
          queries: [query(`sum by (error) (rate(webhook_deliveries_total{${s}, outcome!="succeeded"}[${RATE}]))`, '{{error}}')],
        }),
        timeseries('Event to receiver 2xx', {
          unit: 's',
          description: 'WebhookDeliveryLatencyHigh pages when the median passes 30 s; the p95 ticket is at 120 s.',
          queries: [
            query('namespace:webhook_event_to_delivery_seconds:p50_rate10m{namespace="$namespace"}', 'p50'),
            query('namespace:webhook_event_to_delivery_seconds:p95_rate10m{namespace="$namespace"}', 'p95'),
          ],
        }),
        timeseries('Attempt duration p99 by outcome', {
          unit: 's',
          queries: [quantile(0.99, 'webhook_attempt_duration_seconds', s, 'outcome')],
        }),
        timeseries('Messages waiting', {
          queries: [query(`max(webhook_messages_waiting{namespace="$namespace", service="webhooks"})`, 'waiting')],
        }),
      ],
    },
    {
      title: 'Endpoints',
      panels: [
        timeseries('Open circuits and enabled endpoints', {
          queries: [
            query('max(webhook_open_circuits{namespace="$namespace", service="webhooks"})', 'open circuits'),
            query('max(webhook_endpoints_enabled{namespace="$namespace", service="webhooks"})', 'enabled endpoints'),
          ],
        }),
        stat('Share with an open circuit', {
          unit: 'percentunit',
          description: 'WebhookCircuitsOpen above 25 % (and at least 2) for 30 minutes.',
          thresholds: [[0.25, 'orange']],
          queries: [
            query(
              'max(webhook_open_circuits{namespace="$namespace", service="webhooks"}) / max(webhook_endpoints_enabled{namespace="$namespace", service="webhooks"})',
              'share',
            ),
          ],
        }),
      ],
    },
  ];
}

function overview() {
  const ns = 'namespace="$namespace"';
  return dashboard({
    uid: 'idv-overview',
    title: 'IDV overview',
    description: 'Every service at a glance: the API objectives, the pipelines that carry events, and what pages.',
    tags: ['overview'],
    rows: [
      {
        title: 'Services',
        panels: [
          stat('Replicas up by service', {
            span: 12,
            thresholds: [],
            queries: [query(`sum by (service) (up{${ns}, service=~"${SERVICE_REGEX}"})`, '{{service}}')],
          }),
          stat('Firing alerts', {
            span: 12,
            thresholds: [[1, 'red']],
            description: 'Alerts of this namespace, and those with no namespace (ServiceTargetMissing).',
            queries: [query('count by (severity) (ALERTS{namespace=~"$namespace|", alertstate="firing"})', '{{severity}}')],
          }),
        ],
      },
      {
        title: 'API (gateway, /v1 routes)',
        panels: [
          timeseries('Requests by route', {
            unit: 'reqps',
            queries: [query(`namespace_route:http_requests:rate5m{${ns}}`, '{{route}}')],
          }),
          timeseries('Error budget burn rate by route (1 h)', {
            thresholds: [
              [6, 'orange'],
              [14.4, 'red'],
            ],
            queries: [query(`namespace_route:http_request_errors:ratio_rate1h{${ns}} / 0.001`, '{{route}}')],
          }),
          timeseries('p99 by route', {
            unit: 's',
            thresholds: [[1, 'red']],
            queries: [query(`namespace_route:http_request_duration_seconds:p99_rate5m{${ns}}`, '{{route}}')],
          }),
        ],
      },
      {
        title: 'Events and work',
        panels: [
          timeseries('Oldest unpublished outbox row', {
            unit: 's',
            thresholds: [[120, 'red']],
            queries: [query(`max by (service) (outbox_oldest_pending_age_seconds{${ns}})`, '{{service}}')],
          }),
          timeseries('Ready messages (not dead-letter)', {
            queries: [query(`max by (queue) (amqp_queue_messages_ready{${ns}, queue!~".*\\\\.dead"})`, '{{queue}}')],
          }),
          timeseries('Dead letters', {
            queries: [
              query(`sum by (queue) (increase(amqp_messages_dead_lettered_total{${ns}}[1h]))`, 'queue {{queue}}'),
              query(`sum by (job) (increase(job_items_total{${ns}, outcome="dead_lettered"}[1h]))`, 'job {{job}}'),
            ],
            description: 'Per hour.',
          }),
          timeseries('Webhook attempt success ratio', {
            unit: 'percentunit',
            min: 0,
            max: 1,
            base: 'red',
            thresholds: [
              [0.5, 'orange'],
              [0.9, 'green'],
            ],
            queries: [query(`namespace:webhook_delivery_success:ratio_rate15m{${ns}}`, '15 m')],
          }),
          timeseries('Webhook event to receiver 2xx', {
            unit: 's',
            queries: [
              query(`namespace:webhook_event_to_delivery_seconds:p50_rate10m{${ns}}`, 'p50'),
              query(`namespace:webhook_event_to_delivery_seconds:p95_rate10m{${ns}}`, 'p95'),
            ],
          }),
          timeseries('Oldest queued verification job', {
            unit: 's',
            thresholds: [[60, 'red']],
            queries: [query(`max by (kind) (verification_jobs_oldest_queued_age_seconds{${ns}})`, '{{kind}}')],
          }),
        ],
      },
      {
        title: 'Resources and integrity',
        panels: [
          timeseries('Requests waiting for a DB connection', {
            queries: [query(`max by (service) (db_pool_waiting_requests{${ns}})`, '{{service}}')],
          }),
          timeseries('Oldest pending registry check', {
            unit: 's',
            thresholds: [[900, 'orange']],
            queries: [query(`max(registry_checks_oldest_pending_age_seconds{${ns}})`, 'oldest')],
          }),
          stat('Token ledger anomalies', {
            span: 8,
            thresholds: [[1, 'red']],
            queries: [query(`max(token_ledger_anomalies{${ns}})`, 'anomalies')],
          }),
        ],
      },
    ],
  });
}

/** Every dashboard, by the file name it is written to. */
export function buildDashboards() {
  return {
    'overview.json': overview(),
    'gateway.json': serviceDashboard(
      'gateway',
      'IDV gateway',
      'The public API: objectives per contract route, throttling, the key cache.',
      gatewayRows(),
    ),
    'keys.json': serviceDashboard('keys', 'IDV keys', 'Accounts and API keys.', [], { outbox: true, jobs: true }),
    'sessions.json': serviceDashboard(
      'sessions',
      'IDV sessions',
      'Verification sessions, their timers, tokens and events.',
      sessionsRows(),
      { outbox: true, jobs: true },
    ),
    'flow-runner.json': serviceDashboard(
      'flow-runner',
      'IDV flow-runner',
      "The person's flow: document and face work, the registry check, uploads.",
      flowRunnerRows(),
      { outbox: true, jobs: true },
    ),
    'webhooks.json': serviceDashboard('webhooks', 'IDV webhooks', 'Webhook delivery and endpoints.', webhooksRows(), {
      jobs: true,
    }),
    'dashboard.json': serviceDashboard('dashboard', 'IDV dashboard', "The integrators' and operators' web dashboard.", []),
  };
}
