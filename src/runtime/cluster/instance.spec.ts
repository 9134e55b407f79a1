import { spawnSync } from 'node:child_process';
import { Instance } from './instance';

describe('Instance', () => {
  const instance = new Instance();

  it('is named host:pid:nonce, unique per process start', () => {
    expect(instance.id).toMatch(new RegExp(`^${instance.host.replace(/\W/g, '\\$&')}:${process.pid}:[0-9a-f]{8}$`));
    expect(new Instance().id).not.toBe(instance.id);
  });

  it('tells the leases of a dead earlier process on this host from those of live ones', () => {
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    expect(instance.isDeadPredecessor(`${instance.host}:${process.pid}:deadbeef`)).toBe(true); // a restarted container: same pid
    expect(instance.isDeadPredecessor(`${instance.host}:${exited}:deadbeef`)).toBe(true);
    expect(instance.isDeadPredecessor(instance.id)).toBe(false);
    expect(instance.isDeadPredecessor(`${instance.host}:${process.ppid}:deadbeef`)).toBe(false); // alive
    expect(instance.isDeadPredecessor(`elsewhere:${exited}:deadbeef`)).toBe(false); // another host: its lease runs out
    expect(instance.isDeadPredecessor('garbage')).toBe(false);
  });
});
