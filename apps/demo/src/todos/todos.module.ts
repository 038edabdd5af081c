import { ViewSetModule } from '@tessera/viewset';
import { todoSerializer } from './todo.serializer.js';
import { TodoFeedViewSet, TodoViewSet } from './todo.viewset.js';

/** `/todos` (every operation) and `/todo-feed` (list and retrieve only) as generated Nest controllers. */
export const TodosModule = ViewSetModule.register([
  { prefix: '/todos', viewSet: TodoViewSet, serializer: todoSerializer },
  { prefix: '/todo-feed', viewSet: TodoFeedViewSet, serializer: todoSerializer },
]);
