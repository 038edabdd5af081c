import { context, metrics, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

/** A metric reader collected on demand (no timer). */
class OnDemandReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** One recorded data point of a metric: its attributes and value (a sum, or a histogram's count). */
export interface MetricPoint {
  readonly attributes: Attributes;
  readonly value: number;
}

/**
 * An OpenTelemetry SDK registered globally for a test: spans into an in-memory exporter (each
 * ended span kept), metrics collected on demand, AsyncLocalStorage context. `stop()` disables the
 * global providers again, so later tests see the API's no-op.
 *
 * @example
 * const telemetry = TelemetryCapture.start();
 * // … exercise the code …
 * const spans = telemetry.spans();
 * await telemetry.stop();
 */
export class TelemetryCapture {
  private constructor(
    private readonly exporter: InMemorySpanExporter,
    private readonly tracerProvider: TracerProvider,
    private readonly meterProvider: MeterProvider,
    private readonly reader: OnDemandReader,
  ) {}

  static start(): TelemetryCapture {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const reader = new OnDemandReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
    return new TelemetryCapture(exporter, tracerProvider, meterProvider, reader);
  }

  /** Every span ended so far. */
  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** Every data point of every metric collected now, by metric name. */
  async metrics(): Promise<Map<string, MetricPoint[]>> {
    const { resourceMetrics } = await this.reader.collect();
    const byName = new Map<string, MetricPoint[]>();
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        const points = byName.get(metric.descriptor.name) ?? [];
        for (const point of metric.dataPoints) {
          const value =
            metric.dataPointType === DataPointType.HISTOGRAM
              ? (point.value as { count: number }).count
              : (point.value as number);
          points.push({ attributes: point.attributes, value });
        }
        byName.set(metric.descriptor.name, points);
      }
    }
    return byName;
  }

  /**
   * Every text telemetry carries, one line each: span names, span and event attributes, event
   * names, status messages and metric data point attributes (for a secret scan).
   */
  async texts(): Promise<string[]> {
    const lines: string[] = [];
    for (const span of this.spans()) {
      lines.push(span.name, JSON.stringify(span.attributes), span.status.message ?? '');
      for (const event of span.events) lines.push(event.name, JSON.stringify(event.attributes ?? {}));
    }
    for (const [name, points] of await this.metrics()) {
      lines.push(name, ...points.map((point) => JSON.stringify(point.attributes)));
    }
    return lines;
  }

  /** Flushes and disables the global providers and context manager. */
  async stop(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    context.disable();
  }
}
