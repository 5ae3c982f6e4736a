import { request, type Dispatcher } from 'undici';
import { hmacSha256, unixTimestamp, type SigningScheme } from '../../src/provider/signing.ts';
import { API_PREFIX } from '../../src/provider/types.ts';

export interface SignedPostOptions {
  baseUrl: string;
  merchantId: string;
  secret: string;
  scheme?: SigningScheme;
  /** Clock for the Timestamp header (default Date.now). */
  now?: () => number;
  dispatcher?: Dispatcher;
  /** Put before `path` (default the provider API's prefix; '' for a merchant's webhook receiver). */
  prefix?: string;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One signed provider call with the body text sent exactly as given; a minimal client for the sandbox's
 * own tests and benchmark (payrecon's real client lives in src/provider/).
 */
export async function signedPost(o: SignedPostOptions, path: string, body: string): Promise<RawAnswer> {
  const timestamp = unixTimestamp((o.now ?? Date.now)());
  const signature = (o.scheme ?? hmacSha256).sign({ timestamp, body, merchantId: o.merchantId }, o.secret);
  const res = await request(`${o.baseUrl}${o.prefix ?? API_PREFIX}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', MerchantID: o.merchantId, Signature: signature, Timestamp: timestamp },
    body,
    dispatcher: o.dispatcher,
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}
