// The floor a React page cannot go under: React 19 and react-dom rendering one heading.
import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(<h1>基线页面</h1>);
