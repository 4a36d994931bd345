/**
 * Answer bodies read within a limit: n8n's HTTP helpers read a body whole with no maximum
 * (`maxContentLength: Infinity`), so every request of the package asks for the body as a stream
 * and reads only what it needs. The reasons: docs/files.md, Answers.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/** The Readable that n8n's helpers hand out (nodes may not import node:stream). */
export type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** Limits, exported for tests. */
export const ANSWER = {
	/** Bytes of an API answer the package needs whole (a record, a list page) it reads at most. */
	maxJsonBytes: 64 * 1024 * 1024,
	/** Bytes of any other answer (an error, a part PUT's answer) read for its message. */
	maxErrorBytes: 16 * 1024,
};

/** Whether a body is a stream (what `encoding: 'stream'` gives), not a body n8n already read. */
export function isStream(body: unknown): body is BinaryStream {
	return (
		!!body &&
		typeof (body as BinaryStream)[Symbol.asyncIterator] === 'function' &&
		typeof (body as BinaryStream).destroy === 'function'
	);
}

/** Lets go of an answer's body stream without reading it. */
export function discard(body: unknown): void {
	if (isStream(body)) body.destroy();
}

/**
 * Reads at most `maxBytes` of a body stream, then lets it go: `whole` says whether the body
 * ended within the limit. A body n8n already read (a Buffer or text) is taken as it is.
 */
export async function readAtMost(
	body: unknown,
	maxBytes: number,
): Promise<{ bytes: Buffer; whole: boolean }> {
	if (Buffer.isBuffer(body)) return { bytes: body, whole: true };
	if (typeof body === 'string') return { bytes: Buffer.from(body), whole: true };
	if (!isStream(body)) return { bytes: Buffer.alloc(0), whole: true };
	const chunks: Buffer[] = [];
	let total = 0;
	let whole = true;
	try {
		for await (const chunk of body) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
			if (total + bytes.length > maxBytes) {
				chunks.push(bytes.subarray(0, maxBytes - total));
				total = maxBytes;
				whole = false;
				break;
			}
			chunks.push(bytes);
			total += bytes.length;
		}
	} finally {
		body.destroy();
	}
	return { bytes: Buffer.concat(chunks, total), whole };
}

/** JSON text parsed, or the text itself when it is not JSON (as n8n's helpers give it). */
export function parseAnswer(text: string): unknown {
	if (!text) return '';
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/**
 * An answer's body as the package uses it: parsed from at most `maxBytes` (`whole`: it ended
 * within them). A body that is not a stream (already parsed by n8n) is returned as it is.
 */
export async function answerBody(
	body: unknown,
	maxBytes: number,
): Promise<{ value: unknown; whole: boolean }> {
	if (!isStream(body) && !Buffer.isBuffer(body) && typeof body !== 'string')
		return { value: body, whole: true };
	const { bytes, whole } = await readAtMost(body, maxBytes);
	return { value: parseAnswer(bytes.toString('utf8')), whole };
}

/** At most `ANSWER.maxErrorBytes` of a body as text, for a message; never throws. */
export async function answerText(body: unknown): Promise<string> {
	try {
		const { bytes } = await readAtMost(body, ANSWER.maxErrorBytes);
		return bytes.toString('utf8');
	} catch {
		return '';
	}
}
