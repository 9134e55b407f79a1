import { performance } from 'node:perf_hooks';
import { TimeSlice } from './time-slice';

/** Holds the thread for `ms`, as a loop over buffered data does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('TimeSlice', () => {
  it('is due once the loop has held the thread for its slice, and starts a new one after a pause', async () => {
    const slice = new TimeSlice(20);
    expect(slice.due()).toBe(false);
    busy(25);
    expect(slice.due()).toBe(true);
    let turned = false;
    setImmediate(() => (turned = true));
    await slice.pause();
    expect(turned).toBe(true);
    expect(slice.due()).toBe(false);
  });

  it('starts a new slice after a real wait for data, not after data that was already there', async () => {
    const slice = new TimeSlice(20, 5);
    busy(15);
    slice.waiting();
    slice.arrived(); // buffered: no wait
    busy(10);
    expect(slice.due()).toBe(true);

    const fresh = new TimeSlice(20, 5);
    busy(15);
    fresh.waiting();
    await new Promise((resolve) => setTimeout(resolve, 10)); // the event loop had turns meanwhile
    fresh.arrived();
    busy(10);
    expect(fresh.due()).toBe(false);
  });
});
