// k6's console (https://grafana.com/docs/k6/latest/javascript-api/#console): log, info, warn,
// error and debug, printed through k6's logger. @types/k6 1.7.0 does not declare it, and lib "dom"
// would declare far more than k6 has.
declare var console: {
  log(...args: any[]): void;
  info(...args: any[]): void;
  warn(...args: any[]): void;
  error(...args: any[]): void;
  debug(...args: any[]): void;
};
