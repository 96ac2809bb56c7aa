// The InfluxQL query of Grafana's InfluxDB datasource as stored in a dashboard: the fields of
// InfluxQuery in github.com/grafana/grafana, public/app/plugins/datasource/influxdb/types.ts,
// that raw InfluxQL panels use (read in a recent version of that file; not pinned to the 13.2.3
// tag). The foundation SDK has no InfluxDB query type, so this one is declared here;
// resultFormat is that file's union: 'time_series' | 'table' | 'logs'.
import type { DataSourceRef } from '@grafana/grafana-foundation-sdk/common';

export interface InfluxQLQuery {
  refId: string;
  datasource?: DataSourceRef;
  hide?: boolean;
  /** true: `query` is raw InfluxQL (not the visual editor's model). */
  rawQuery?: boolean;
  query?: string;
  resultFormat?: 'time_series' | 'table' | 'logs';
  /** Series name pattern: $tag_<key> (a GROUP BY tag), $col, $m/$measurement. */
  alias?: string;
}
