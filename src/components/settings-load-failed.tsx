import { Button } from 'antd-mobile';
import './settings-form.css';

/** A 系统设置 page whose settings could not be read: what failed and why, and 重试. */
export function SettingsLoadFailed({ what, error, pageClass, onRetry }: { what: string; error: Error; pageClass: string; onRetry: () => void }) {
  return (
    <div className={`page sf ${pageClass}`}>
      <section className="card sf-card">
        <p className="sf-problem" role="alert">
          {what}加载失败：{error.message}
        </p>
        <Button size="small" onClick={onRetry}>
          重试
        </Button>
      </section>
    </div>
  );
}
