// A sampling heap profile (V8's `HeapProfiler.stopSampling` result) summed by allocation site.

/** Bytes by site, largest first: a site is the innermost three frames (`fn file:line < caller < …`). */
export function bytesBySite(profile) {
  const bySite = new Map();
  const walk = (node, stack) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    const path = [...stack, frame];
    const site = path.slice(-3).reverse().join(' < ');
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, path);
  };
  walk(profile.head, []);
  return [...bySite].sort((a, b) => b[1] - a[1]);
}
