/**
 * The one table of failure codes. Every error the server answers carries one of
 * these codes, the HTTP status of its class and a Chinese message a person can act on.
 * Clients branch on `code`, never on message text.
 */
export const ErrorCode = {
  OK: 1000,
  VALIDATION: 1001,
  UNAUTHENTICATED: 1002,
  FORBIDDEN: 1003,
  NO_ROLE: 1004,
  NOT_FOUND: 1005,
  STATE_CONFLICT: 1006,
  DUPLICATE: 1007,
  IDEMPOTENCY_IN_PROGRESS: 1008,
  IDEMPOTENCY_MISMATCH: 1009,
  PAYLOAD_TOO_LARGE: 1010,
  UNSUPPORTED_MEDIA: 1011,
  RATE_LIMITED: 1012,
  CAPTCHA_INVALID: 1013,
  BAD_CREDENTIALS: 1014,
  DECRYPT_FAILED: 1015,
  ACCOUNT_DISABLED: 1016,
  IN_USE: 1017,
  URI_TOO_LONG: 1018,
  HEADERS_TOO_LARGE: 1019,
  TIMEOUT: 1020,
  DB_UNAVAILABLE: 1021,
  STORAGE_FULL: 1022,
  INTERNAL: 1500,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ErrorCodeInfo {
  code: ErrorCodeValue;
  status: number;
  message: string;
}

/** Default HTTP status and message per code; a thrower may give a more precise message. */
export const errorTable: Record<Exclude<ErrorCodeValue, 1000>, Omit<ErrorCodeInfo, 'code'>> = {
  [ErrorCode.VALIDATION]: { status: 400, message: '请求参数不正确' },
  [ErrorCode.UNAUTHENTICATED]: { status: 401, message: '登录已过期，请重新登录' },
  [ErrorCode.FORBIDDEN]: { status: 403, message: '没有操作权限' },
  [ErrorCode.NO_ROLE]: { status: 403, message: '当前账号没有操作角色，请联系管理员。' },
  [ErrorCode.NOT_FOUND]: { status: 404, message: '记录不存在或已被删除' },
  [ErrorCode.STATE_CONFLICT]: { status: 409, message: '当前状态不允许此操作' },
  [ErrorCode.DUPLICATE]: { status: 409, message: '记录已存在' },
  [ErrorCode.IDEMPOTENCY_IN_PROGRESS]: { status: 409, message: '相同的请求正在处理中，请稍后重试' },
  [ErrorCode.IDEMPOTENCY_MISMATCH]: { status: 422, message: '幂等键已用于内容不同的请求' },
  [ErrorCode.PAYLOAD_TOO_LARGE]: { status: 413, message: '提交的内容过大' },
  [ErrorCode.UNSUPPORTED_MEDIA]: { status: 415, message: '不支持的文件或内容类型' },
  [ErrorCode.RATE_LIMITED]: { status: 429, message: '操作过于频繁，请稍后再试' },
  [ErrorCode.CAPTCHA_INVALID]: { status: 400, message: '验证码错误或已过期，请重新获取' },
  [ErrorCode.BAD_CREDENTIALS]: { status: 401, message: '账号或密码错误' },
  [ErrorCode.DECRYPT_FAILED]: { status: 400, message: '加密内容无法解析，请刷新页面后重试' },
  [ErrorCode.ACCOUNT_DISABLED]: { status: 403, message: '账号已停用，请联系管理员' },
  [ErrorCode.IN_USE]: { status: 409, message: '记录正在被使用，不能删除' },
  [ErrorCode.URI_TOO_LONG]: { status: 414, message: '请求地址过长' },
  [ErrorCode.HEADERS_TOO_LARGE]: { status: 431, message: '请求头或查询参数过长，请缩短后重试' },
  [ErrorCode.TIMEOUT]: { status: 408, message: '请求超时，请检查网络后重试' },
  [ErrorCode.DB_UNAVAILABLE]: { status: 503, message: '数据库暂时无法连接，本次操作未生效，请稍后重试' },
  [ErrorCode.STORAGE_FULL]: { status: 507, message: '服务器存储空间已满，本次操作未保存，请联系管理员清理磁盘后重试' },
  [ErrorCode.INTERNAL]: { status: 500, message: '服务器内部错误，请稍后重试' },
};
