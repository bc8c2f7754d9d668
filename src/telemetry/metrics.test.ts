import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

/** The value of one series in the registry's text exposition, by its exact label text. */
async function sample(metrics: Metrics, series: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('httpRequestRecorder', () => {
  it('counts each method and status of its route apart, however they alternate', async () => {
    const metrics = new Metrics({ enabled: true, flagLabels: false });
    const record = metrics.httpRequestRecorder('/evaluate/v1/boolean');
    const other = metrics.httpRequestRecorder('/other');
    record('POST', 200, 0.001);
    record('POST', 200, 0.002);
    record('POST', 404, 0.001);
    record('POST', 200, 0.001);
    record('GET', 200, 0.001);
    other('POST', 200, 0.001);
    const requests = 'vexil_http_requests_total';
    expect(await sample(metrics, `${requests}{method="POST",route="/evaluate/v1/boolean",status="200"}`)).toBe(3);
    expect(await sample(metrics, `${requests}{method="POST",route="/evaluate/v1/boolean",status="404"}`)).toBe(1);
    expect(await sample(metrics, `${requests}{method="GET",route="/evaluate/v1/boolean",status="200"}`)).toBe(1);
    expect(await sample(metrics, `${requests}{method="POST",route="/other",status="200"}`)).toBe(1);
    const count = 'vexil_http_request_duration_seconds_count';
    expect(await sample(metrics, `${count}{method="POST",route="/evaluate/v1/boolean"}`)).toBe(4);
  });

  it('records nothing when metrics are off', async () => {
    const metrics = new Metrics({ enabled: false, flagLabels: false });
    metrics.httpRequestRecorder('/r')('POST', 200, 0.001);
    expect(await sample(metrics, 'vexil_http_requests_total{method="POST",route="/r",status="200"}')).toBeUndefined();
  });
});
