import { ListScreen } from '../../../list-screen';
import { personHistoryScreen } from './history-screens';

export default function PersonHistoryPage() {
  return <ListScreen def={personHistoryScreen} />;
}
