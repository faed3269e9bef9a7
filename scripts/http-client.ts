import net from 'node:net';

/**
 * The bench's HTTP client for its loads: keep-alive HTTP/1.1 over plain
 * sockets, one request in flight per socket, each request written as one
 * string and each answer read by its Content-Length. The bench measures the
 * server; Node's fetch cost this process about as much CPU per call as the
 * server spent answering it, and on two cores the server then sat idle for a
 * tenth to a third of a list's run, waiting for the client (the bench's
 * "busy" column). A load's figure was the client's, not the server's.
 */

export interface Answer {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

class Connection {
  private pending: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | null = null;
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    const fail = (error: Error) => {
      this.closed = true;
      this.waiting?.reject(error);
      this.waiting = null;
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the server closed the connection')));
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port }, () => {
        socket.off('error', reject);
        resolve(new Connection(socket));
      });
      socket.once('error', reject);
    });
  }

  send(request: string): Promise<Answer> {
    if (this.waiting) throw new Error('one request at a time on a connection');
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  private received(chunk: Buffer) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const headEnd = this.pending.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = this.pending.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      // Every answer the bench loads is a JSON envelope, which Fastify sends with its length.
      this.waiting?.reject(new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
      this.waiting = null;
      this.socket.destroy();
      return;
    }
    const end = headEnd + 4 + Number(length[1]);
    if (this.pending.length < end) return;
    const answer = { status: Number(head.slice(9, 12)), body: this.pending.subarray(headEnd + 4, end) };
    this.pending = this.pending.subarray(end);
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(answer);
  }

  close() {
    this.closed = true;
    this.socket.destroy();
  }
}

/** Keep-alive connections to one origin, opened as the load needs them and reused. */
export class HttpClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;

  constructor(origin: string) {
    const url = new URL(origin);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  async request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    let connection = this.idle.pop();
    while (connection?.closed) connection = this.idle.pop();
    if (!connection) {
      connection = await Connection.open(this.host, this.port);
      this.all.add(connection);
    }
    let request = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n`;
    for (const [k, v] of Object.entries(headers)) request += `${k}: ${v}\r\n`;
    request += body === undefined ? '\r\n' : `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const answer = await connection.send(request);
    this.idle.push(connection);
    return answer;
  }

  /** POSTs JSON; throws unless the answer is a 200 whose envelope says success. */
  async postJson(path: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const answer = await this.request('POST', path, { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, JSON.stringify(body));
    // The envelope's first field: a check that needs no JSON parse of the whole page.
    if (answer.status !== 200 || !answer.body.subarray(0, 32).toString('latin1').includes('"success":true')) {
      throw new Error(`${path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    }
    return answer;
  }

  close() {
    for (const c of this.all) c.close();
    this.all.clear();
    this.idle.length = 0;
  }
}
