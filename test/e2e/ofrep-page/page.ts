// The page script of the OFREP push test: OpenFeature's web SDK with the OFREP web provider, polling
// off, so a flag changes on the page only through the event stream. Bundled by esbuild for the test.

import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk';

interface Seen {
  value: boolean;
  at: number;
}

declare global {
  interface Window {
    startFlags(options: { baseUrl: string; token?: string; flag: string }): Promise<boolean>;
    flagValue(): boolean;
    seen: Seen[];
    streamsOpened: number;
  }
}

window.seen = [];
window.streamsOpened = 0;

// Counts the streams the provider opens (the first one and every reconnection after an error).
const NativeEventSource = window.EventSource;
window.EventSource = class extends NativeEventSource {
  constructor(url: string | URL, init?: EventSourceInit) {
    super(url, init);
    this.addEventListener('open', () => window.streamsOpened++);
  }
} as typeof EventSource;

let flag = '';

window.startFlags = async ({ baseUrl, token, flag: key }) => {
  flag = key;
  const provider = new OFREPWebProvider({
    baseUrl,
    pollInterval: 0,
    cacheMode: 'disabled',
    ...(token ? { headers: [['Authorization', `Bearer ${token}`]] as [string, string][] } : {}),
  });
  await OpenFeature.setProviderAndWait(provider);
  const client = OpenFeature.getClient();
  const record = () => window.seen.push({ value: client.getBooleanValue(flag, false), at: Date.now() });
  client.addHandler(ProviderEvents.ConfigurationChanged, record);
  record();
  return client.getBooleanValue(flag, false);
};

window.flagValue = () => OpenFeature.getClient().getBooleanValue(flag, false);
