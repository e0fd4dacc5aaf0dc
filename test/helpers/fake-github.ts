// A fake GitHub REST API on 127.0.0.1: issue comments (paginated with Link
// headers, as GitHub does), /user, the open pull requests of a head
// (owner:branch), files on branches (the contents API: base64, blob shas, 409
// on a stale sha) and issues. It can refuse writes with 403, as GitHub does
// for a fork's read-only token.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  html_url: string;
}

export interface FakeGitHub {
  url: string;
  comments: Map<number, FakeComment[]>;
  /** Every request as "METHOD path". */
  log: string[];
  readOnly: boolean;
  /** The login /user returns; undefined answers 403 like GITHUB_TOKEN. */
  login: string | undefined;
  /** Open pull requests, listed by GET /repos/{o}/{r}/pulls?head=owner:branch. */
  openPulls: { number: number; head: string; sha: string; repo: string }[];
  /** Files by "branch:path"; the branches that exist. */
  files: Map<string, { text: string; sha: string }>;
  branches: Set<string>;
  issues: { number: number; title: string; body: string; state: string; html_url: string }[];
  close(): Promise<void>;
}

const BOT = { login: "github-actions[bot]", type: "Bot" };

export async function startFakeGitHub(): Promise<FakeGitHub> {
  let nextId = 1000;
  const state = {
    comments: new Map<number, FakeComment[]>(),
    log: [] as string[],
    readOnly: false,
    login: undefined as string | undefined,
    openPulls: [] as FakeGitHub["openPulls"],
    files: new Map<string, { text: string; sha: string }>(),
    branches: new Set<string>(["main"]),
    issues: [] as FakeGitHub["issues"],
  };
  let nextSha = 1;
  let base = "";
  const json = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const forbidden = (res: ServerResponse) =>
    json(res, 403, {
      message: "Resource not accessible by integration",
      documentation_url: "https://docs.github.com",
    });

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", base);
    state.log.push(`${req.method} ${url.pathname}`);
    const issueComments = url.pathname.match(
      /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
    );
    const oneComment = url.pathname.match(/^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/);
    const pulls = url.pathname.match(/^\/repos\/[^/]+\/[^/]+\/pulls$/);
    const contents = url.pathname.match(/^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/);
    const issues = url.pathname.match(/^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+))?$/);
    if (req.method === "GET" && url.pathname === "/user") {
      if (state.login) json(res, 200, { login: state.login, type: "User" });
      else forbidden(res);
    } else if (issueComments) {
      const m = issueComments;
      const issue = Number(m[3]);
      const list = state.comments.get(issue) ?? [];
      state.comments.set(issue, list);
      if (req.method === "GET") {
        const perPage = Number(url.searchParams.get("per_page") ?? 30);
        const page = Number(url.searchParams.get("page") ?? 1);
        const slice = list.slice((page - 1) * perPage, page * perPage);
        const last = Math.max(1, Math.ceil(list.length / perPage));
        const link = (p: number, rel: string) => {
          const u = new URL(url);
          u.searchParams.set("page", String(p));
          u.searchParams.set("per_page", String(perPage));
          return `<${u}>; rel="${rel}"`;
        };
        const links = [page < last ? link(page + 1, "next") : "", link(last, "last")].filter(
          Boolean,
        );
        json(res, 200, slice, { link: links.join(", ") });
      } else if (req.method === "POST") {
        if (state.readOnly) return forbidden(res);
        const c: FakeComment = {
          id: nextId++,
          body: JSON.parse(body).body,
          user: state.login ? { login: state.login, type: "User" } : BOT,
          html_url: "",
        };
        c.html_url = `https://github.example/${m[1]}/${m[2]}/pull/${issue}#issuecomment-${c.id}`;
        list.push(c);
        json(res, 201, c);
      } else json(res, 405, { message: "method" });
    } else if (oneComment) {
      const m = oneComment;
      if (state.readOnly) return forbidden(res);
      const id = Number(m[1]);
      for (const [issue, list] of state.comments) {
        const i = list.findIndex((c) => c.id === id);
        if (i < 0) continue;
        if (req.method === "PATCH") {
          (list[i] as FakeComment).body = JSON.parse(body).body;
          return json(res, 200, list[i]);
        }
        if (req.method === "DELETE") {
          list.splice(i, 1);
          state.comments.set(issue, list);
          res.writeHead(204).end();
          return;
        }
      }
      json(res, 404, { message: "Not Found" });
    } else if (contents) {
      const [, , , path = ""] = contents;
      if (req.method === "GET") {
        const ref = url.searchParams.get("ref") ?? "main";
        const f = state.files.get(`${ref}:${decodeURIComponent(path)}`);
        if (!f) return json(res, 404, { message: "Not Found" });
        return json(res, 200, {
          type: "file",
          encoding: "base64",
          sha: f.sha,
          content: Buffer.from(f.text).toString("base64"),
        });
      }
      if (req.method !== "PUT") return json(res, 405, { message: "method" });
      if (state.readOnly) return forbidden(res);
      const put = JSON.parse(body) as { content: string; sha?: string; branch: string };
      if (!state.branches.has(put.branch))
        return json(res, 404, { message: `Branch ${put.branch} not found` });
      const key = `${put.branch}:${decodeURIComponent(path)}`;
      if (put.sha !== state.files.get(key)?.sha)
        return json(res, 409, { message: `${path} does not match ${put.sha ?? "(no sha)"}` });
      const sha = `blob${nextSha++}`;
      state.files.set(key, { text: Buffer.from(put.content, "base64").toString("utf8"), sha });
      json(res, 201, { content: { sha } });
    } else if (issues) {
      const [, owner, repo, n] = issues;
      if (req.method === "GET" && n === undefined)
        return json(
          res,
          200,
          state.issues.filter((i) => i.state === "open"),
        );
      if (state.readOnly) return forbidden(res);
      const sent = JSON.parse(body || "{}") as { title?: string; body?: string };
      if (req.method === "POST" && n === undefined) {
        const number = state.issues.length + 1;
        const issue = {
          number,
          title: sent.title ?? "",
          body: sent.body ?? "",
          state: "open",
          html_url: `https://github.example/${owner}/${repo}/issues/${number}`,
        };
        state.issues.push(issue);
        return json(res, 201, issue);
      }
      const issue = state.issues.find((i) => i.number === Number(n));
      if (req.method === "PATCH" && issue) {
        if (sent.body !== undefined) issue.body = sent.body;
        return json(res, 200, issue);
      }
      json(res, 404, { message: "Not Found" });
    } else if (pulls && req.method === "GET") {
      const head = url.searchParams.get("head");
      const list = state.openPulls
        .filter((p) => head === null || p.head === head)
        .map((p) => ({
          number: p.number,
          state: "open",
          head: { sha: p.sha, ref: p.head.split(":")[1], repo: { full_name: p.repo } },
        }));
      json(res, 200, list);
    } else {
      json(res, 404, { message: "Not Found" });
    }
  };

  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Seeds an issue with comments from other people. */
export function seedComments(gh: FakeGitHub, issue: number, count: number): void {
  const list = gh.comments.get(issue) ?? [];
  for (let i = 0; i < count; i++) {
    list.push({
      id: i + 1,
      body: `review comment ${i}`,
      user: { login: `dev${i % 7}`, type: "User" },
      html_url: "",
    });
  }
  gh.comments.set(issue, list);
}
