import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** The variable that turns the demo's OpenTelemetry SDK on (the OTLP/HTTP collector base URL). */
export const OTLP_ENDPOINT_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/** How long the demo waits for its last export at shutdown before it exits anyway. */
const SHUTDOWN_BOUND_MS = 5_000;

/** A started SDK: `shutdown()` flushes what is pending, bounded, and never rejects. */
export interface DemoTelemetry {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK with OTLP/HTTP trace and metric exporters when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the exporters read it and the other `OTEL_*` variables
 * themselves), before the app is created, so the identity platform's tracer and meter are the
 * SDK's; `undefined` (the API's no-op) when unset. An unreachable collector only costs failed
 * exports, never the app.
 *
 * @example
 * const telemetry = startDemoTelemetry(process.env);
 * await telemetry?.shutdown();
 */
export function startDemoTelemetry(env: NodeJS.ProcessEnv): DemoTelemetry | undefined {
  if (!env[OTLP_ENDPOINT_ENV]) return undefined;
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? 'tessera-demo',
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
    instrumentations: [],
  });
  sdk.start();
  return {
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_BOUND_MS);
        timer.unref();
      });
      await Promise.race([sdk.shutdown().catch(() => undefined), bound]);
      clearTimeout(timer);
    },
  };
}
