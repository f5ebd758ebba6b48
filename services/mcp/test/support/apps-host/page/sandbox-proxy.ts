/**
 * The sandbox proxy of the MCP Apps test host (the extension's "Sandbox proxy", on an origin other
 * than the host's): it loads the view's HTML into an inner iframe — which inherits this document's
 * Content-Security-Policy, the one the host built from the resource's `_meta.ui.csp` — and passes
 * messages between the host and the view, except its own `ui/notifications/sandbox-*`.
 */
const host = document.referrer ? new URL(document.referrer).origin : '*';
const inner = document.createElement('iframe');
inner.title = 'view';
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin');
inner.style.cssText = 'width:100%;height:100%;border:0';
document.body.append(inner);

window.addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.origin !== host) return;
    if (event.data?.method === 'ui/notifications/sandbox-resource-ready') {
      const doc = inner.contentDocument!;
      doc.open();
      doc.write(event.data.params.html);
      doc.close();
    } else inner.contentWindow?.postMessage(event.data, '*');
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, host);
  }
});
window.parent.postMessage(
  { jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} },
  host,
);
