// Preloaded (node -r) into a tool a test runs, to prove it reaches nothing but loopback: any other
// outgoing connection throws, so a tool that phones home (telemetry, update checks) fails the test.
const net = require('node:net');
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = typeof args[0] === 'object' && args[0] !== null ? args[0] : { port: args[0], host: args[1] };
  const host = options.host ?? 'localhost';
  if (!options.path && !/^(localhost|127\.\d+\.\d+\.\d+|::1)$/.test(host)) {
    throw new Error(`no-network.cjs: refused a connection to ${host}:${options.port}`);
  }
  return connect.apply(this, args);
};
