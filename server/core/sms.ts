import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { SmsProviderName } from '../config';

export interface SmsMessage {
  phone: string;
  account: string;
  code?: string;
  text: string;
  time: string;
}

export interface SmsSender {
  send(msg: SmsMessage): Promise<void>;
}

/**
 * `log` stands in for an SMS gateway on a developer's machine: the message is
 * the delivery, so it is the one log line that carries a code. `file` appends
 * one JSON line per message to DATA_DIR/sms-outbox.jsonl, for tests and demos.
 */
export function createSmsSender(name: SmsProviderName, dataDir: string, log: FastifyBaseLogger): SmsSender {
  if (name === 'file') {
    const file = path.join(dataDir, 'sms-outbox.jsonl');
    return {
      async send(msg) {
        await fs.promises.mkdir(dataDir, { recursive: true });
        await fs.promises.appendFile(file, JSON.stringify(msg) + '\n', 'utf8');
      },
    };
  }
  return {
    async send(msg) {
      log.info({ sms: { phone: msg.phone, account: msg.account } }, `[短信网关] 发送给 ${msg.phone}: ${msg.text}`);
    },
  };
}
