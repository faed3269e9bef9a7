import { Toast } from 'antd-mobile';

/** Loaded on demand by the login page: Toast brings react-spring (~21 KB gzip) that the form itself does not need. */
export function showToast(content: string, icon: 'success' | 'fail') {
  Toast.show({ icon, content });
}
