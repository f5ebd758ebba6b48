import { inSpan, markSpanFailed, tracingOn } from '@sheetgate/service-runtime';
import { googleApiMethod } from '../metrics/google-api-methods.ts';
import type { GoogleHttpAdapter } from './http-adapter.ts';

/**
 * With tracing on, every HTTP attempt to Google is a client span named by its API method
 * (`sheets.spreadsheets.values.get`), under the tool call's span: its method, host and status,
 * never its URL (a spreadsheet id, a range) or its body. No traceparent is sent to Google.
 */
export function withTraceSpans(inner: GoogleHttpAdapter): GoogleHttpAdapter {
  return (options, defaultAdapter) => {
    if (!tracingOn()) return inner(options, defaultAdapter);
    const httpMethod = options.method ?? 'GET';
    const url = new URL(options.url);
    return inSpan(
      googleApiMethod(httpMethod, options.url),
      { kind: 'client', attributes: { 'http.request.method': httpMethod, 'server.address': url.hostname } },
      async (span) => {
        const response = await inner(options, defaultAdapter);
        span?.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) markSpanFailed(span, `HTTP ${response.status}`);
        return response;
      },
    );
  };
}
