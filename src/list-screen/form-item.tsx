import type { ReactNode } from 'react';

export interface FormItemProps {
  label: ReactNode;
  required?: boolean;
  /** Shown under the input in place of the help text. */
  error?: string;
  help?: ReactNode;
  htmlFor?: string;
  className?: string;
  children: ReactNode;
}

/** One labelled form row with its error or help line: the markup every form of the app shares (entity forms, application forms, action modals). */
export function FormItem({ label, required, error, help, htmlFor, className, children }: FormItemProps) {
  return (
    <div className={`ef-item${error ? ' ef-item--error' : ''}${className ? ` ${className}` : ''}`}>
      <label className="ef-label" htmlFor={htmlFor}>
        {required && (
          <span className="ef-req" aria-hidden>
            *
          </span>
        )}
        {label}
      </label>
      <div className="ef-control">
        {children}
        {error ? (
          <div className="ef-error" role="alert">
            {error}
          </div>
        ) : help ? (
          <div className="ef-help">{help}</div>
        ) : null}
      </div>
    </div>
  );
}
