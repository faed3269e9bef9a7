import { ListScreen } from '../../../list-screen';
import { personAllHistoryScreen } from './history-screens';

export default function PersonAllHistoryPage() {
  return <ListScreen def={personAllHistoryScreen} />;
}
