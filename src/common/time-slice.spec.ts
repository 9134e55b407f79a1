import { performance } from 'node:perf_hooks';
import { TimeSlice } from './time-slice';

/** Holds the thread for `ms`, as a loop over buffered data does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

// slices long enough that a loaded machine's pauses cannot cross them by accident
describe('TimeSlice', () => {
  it('is due once the loop has held the thread for its slice, and starts a new one after a pause', async () => {
    const slice = new TimeSlice(100);
    expect(slice.due()).toBe(false);
    busy(110);
    expect(slice.due()).toBe(true);
    let turned = false;
    setImmediate(() => (turned = true));
    await slice.pause();
    expect(turned).toBe(true);
    expect(slice.due()).toBe(false);
  });

  it('starts a new slice after a real wait for data, not after data that was already there', async () => {
    const slice = new TimeSlice(100, 20);
    busy(60);
    slice.waiting();
    slice.arrived(); // buffered: no wait
    busy(50);
    expect(slice.due()).toBe(true);

    const fresh = new TimeSlice(100, 20);
    busy(60);
    fresh.waiting();
    await new Promise((resolve) => setTimeout(resolve, 30)); // the event loop had turns meanwhile
    fresh.arrived();
    busy(5);
    expect(fresh.due()).toBe(false);
  });
});
