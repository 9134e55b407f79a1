import { isProbe } from './probes';

describe('isProbe', () => {
  it('knows the probe and scrape paths, whatever the query', () => {
    expect(['/health', '/health/ready', '/metrics', '/metrics?x=1', '/health/ready?verbose'].every(isProbe)).toBe(true);
    expect(['/api/v1/runs', '/healthz', '/health/', '/'].some(isProbe)).toBe(false);
  });
});
