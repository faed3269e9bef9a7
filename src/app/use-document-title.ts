import { useEffect } from 'react';

export const PRODUCT_NAME = '园区出入管理系统';

export function useDocumentTitle(title: string | undefined) {
  useEffect(() => {
    document.title = title ? `${title} - ${PRODUCT_NAME}` : PRODUCT_NAME;
  }, [title]);
}
