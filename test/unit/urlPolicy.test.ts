/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Where the package sends things and what it reads, as pure rules: loopback hosts, the key only
 * to the Base URL's origin (whatever shape n8n's helpers give the request), plain http straight
 * to its host, redirects by their method rules, sizes in any JSON type, local causes of a failed
 * download. Engine tests (test/engine/security.test.ts, files.test.ts, answers.test.ts) run the
 * same rules through n8n.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { localCause } from '../../nodes/shared/files/download';
import { redirectedRequest, sizeOf } from '../../nodes/shared/files/signedUrl';
import {
	directOverHttp,
	insecureUrlProblem,
	isLoopbackHost,
	keyedRequest,
	requestTarget,
} from '../../nodes/shared/transport/urlPolicy';

describe('plain http: loopback addresses and localhost itself only', () => {
	test.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])(
		'%s is loopback',
		(host) => expect(isLoopbackHost(host)).toBe(true),
	);
	test.each(['app.localhost', 'localhost.', '0.0.0.0', 'example.com', '[::2]', '128.0.0.1'])(
		'%s is not',
		(host) => expect(isLoopbackHost(host)).toBe(false),
	);
	test('a name under .localhost is refused over http, saying why', () => {
		expect(insecureUrlProblem('http://app.localhost:3000/v1', 'The Base URL')).toBe(
			'The Base URL must use https:// (plain http is accepted only for localhost and 127.0.0.1), got http://app.localhost:3000 (a name under .localhost is looked up like any other name: it may leave this machine)',
		);
		expect(insecureUrlProblem('https://app.localhost/v1', 'The Base URL')).toBeUndefined();
		// WHATWG URL parsing writes 127.1 as 127.0.0.1
		expect(insecureUrlProblem('http://127.1:3000/v1', 'The Base URL')).toBeUndefined();
	});
});

describe('where a request goes, as n8n builds it', () => {
	test.each([
		[{ url: '/workspace', baseURL: 'https://api.example/v1' }, 'https://api.example/v1/workspace'],
		[{ url: 'workspace', baseURL: 'https://api.example/v1/' }, 'https://api.example/v1/workspace'],
		[
			{ url: 'https://other.example/x', baseURL: 'https://api.example/v1' },
			'https://other.example/x',
		],
		[{ url: '//other.example/x', baseURL: 'https://api.example/v1' }, undefined],
		[{ uri: 'https://api.example/v1/x' }, 'https://api.example/v1/x'],
		[{ url: '/x' }, undefined],
	])('%j goes to %s', (request, target) => {
		expect(requestTarget(request as never)).toBe(target);
	});
});

describe('the key goes only to the Base URL origin', () => {
	const base = 'https://api.mediagen.example/v1';
	const refused = /sends its API key only to its Base URL \(https:\/\/api\.mediagen\.example\)/;
	test.each([
		'https://api.mediagen.example.evil.example/v1/workspace',
		'https://api.mediagen.example@evil.example/v1/workspace',
		'https://api.mediagen.example:8443/v1/workspace',
		'http://api.mediagen.example/v1/workspace',
		'//evil.example/v1/workspace',
	])('refused: %s', (url) => {
		expect(() => keyedRequest(base, { url, baseURL: base })).toThrow(
			/could not tell where|sends its API key only/,
		);
		if (!url.startsWith('//'))
			expect(() => keyedRequest(base, { uri: url } as never)).toThrow(refused);
	});
	test('a request to the Base URL origin follows no redirect, whatever the caller asked', () => {
		const proxy = { protocol: 'http', host: 'proxy.example', port: 3128 };
		const asked = {
			url: 'https://api.mediagen.example/v1/assets',
			proxy,
			maxRedirects: 21,
			disableFollowRedirect: false,
			followRedirect: true,
			followAllRedirects: true,
			sendCredentialsOnCrossOriginRedirect: true,
		};
		expect(keyedRequest(base, asked)).toEqual({
			url: 'https://api.mediagen.example/v1/assets',
			// over https a proxy only tunnels the encrypted connection: the caller's is kept
			proxy,
			maxRedirects: 0,
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
			sendCredentialsOnCrossOriginRedirect: false,
		});
	});
	test('over plain http (loopback): straight to the host, no redirect', () => {
		const local = 'http://localhost:4010/v1';
		expect(keyedRequest(local, { url: '/workspace', baseURL: local })).toMatchObject({
			proxy: { protocol: 'http', host: 'localhost', port: 4010 },
			maxRedirects: 0,
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
			sendCredentialsOnCrossOriginRedirect: false,
		});
		expect(directOverHttp('http://[::1]/x')).toEqual({
			proxy: { protocol: 'http', host: '[::1]', port: 80 },
		});
		expect(directOverHttp('https://api.example/x')).toEqual({});
	});
});

describe('redirects by their method rules', () => {
	const put = {
		method: 'PUT' as const,
		url: 'https://s/a',
		body: Buffer.from('x'),
		headers: { 'content-type': 'application/octet-stream', 'x-a': '1' },
	};
	test('303 after a PUT is a GET without the body and its content headers', () => {
		expect(redirectedRequest(put, 303, 'https://s/b')).toEqual({
			method: 'GET',
			url: 'https://s/b',
			headers: { 'x-a': '1' },
		});
	});
	test('307, 308, and 301/302 of a PUT keep the method and the body', () => {
		for (const status of [301, 302, 307, 308])
			expect(redirectedRequest(put, status, 'https://s/b')).toEqual({ ...put, url: 'https://s/b' });
	});
	test('301/302 after a POST is a GET; a HEAD stays a HEAD', () => {
		expect(redirectedRequest({ method: 'POST', url: 'u', body: {} }, 302, 'v').method).toBe('GET');
		expect(redirectedRequest({ method: 'HEAD', url: 'u' }, 303, 'v').method).toBe('HEAD');
	});
});

test('sizes in any JSON type', () => {
	expect(sizeOf(4096)).toBe(4096);
	expect(sizeOf('4096')).toBe(4096);
	expect(sizeOf(' 12 ')).toBe(12);
	expect(sizeOf(undefined)).toBeUndefined();
	expect(sizeOf(null)).toBeUndefined();
	for (const bad of ['4 KB', '-1', '1e3', 1.5, -2, '9007199254740993', {}, true])
		expect(sizeOf(bad)).toBeNaN();
});

describe('a failed download stored here: local causes are named, network faults are not', () => {
	test('a real file-system error (ENOTDIR) is local, with its detail', async () => {
		const dir = join(tmpdir(), `mediagen-local-${process.pid}`);
		await mkdir(dir, { recursive: true });
		await writeFile(join(dir, 'file'), 'x');
		const error = await mkdir(join(dir, 'file', 'sub'), { recursive: true }).catch((e) => e);
		expect(localCause(error, false)).toEqual({
			what: 'n8n could not store the file',
			detail: expect.stringMatching(/^ENOTDIR: not a directory, mkdir/),
		});
	});
	test('a full disk, no permission, the in-memory limit: named with what to do', () => {
		const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
			code: 'ENOSPC',
			syscall: 'write',
		});
		expect(localCause(full, false)?.what).toBe("the disk that holds n8n's binary data is full");
		const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
		expect(localCause(denied, false)?.what).toMatch(/may not write to its binary data folder/);
		const tooLong = Object.assign(
			new Error('Cannot create a string longer than 0x1fffffe8 characters'),
			{
				code: 'ERR_STRING_TOO_LONG',
			},
		);
		expect(localCause(tooLong, true)?.what).toMatch(/N8N_DEFAULT_BINARY_DATA_MODE=filesystem$/);
	});
	test('after every byte arrived any failure is local; before, an unknown one is retried', () => {
		expect(localCause(new Error('Stream closed before completing'), false)).toBeUndefined();
		expect(
			localCause(new Error('Response body timed out after 300000ms without data'), false),
		).toBeUndefined();
		expect(localCause(new Error('something else'), true)).toEqual({
			what: 'n8n could not store the file',
			detail: 'something else',
		});
	});
});
